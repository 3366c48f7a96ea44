/** OperatorExceptions over `payment_reconciliation_exceptions` (SQLite and Postgres). */
import { Effect } from "effect";
import { OperatorException, type OperatorExceptions } from "../../../ports/payments/OperatorExceptions.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

export const makeSqlOperatorExceptions = (db: SqlDatabase): OperatorExceptions => {
  const codec = rowCodec(OperatorException, featuresFor(db));
  return {
    listAll: ({ status, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("payment_reconciliation_exceptions").selectAll();
        if (status !== undefined) query = query.where("status", "=", status);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(codec.fromRow))),
  };
};
