/** OperatorExceptions over `payment_reconciliation_exceptions` (SQLite and Postgres). */
import { Effect } from "effect";
import type { OperatorException, OperatorExceptions } from "../../../ports/payments/OperatorExceptions.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export const makeSqlOperatorExceptions = (db: SqlDatabase): OperatorExceptions => {
  const f = featuresFor(db);
  const json = (v: unknown): unknown => (v === null || v === undefined ? null : f.jsonFromDb(v));
  const time = (v: unknown): Date | null => (v === null || v === undefined ? null : f.timeFromDb(v));
  return {
    listAll: ({ status, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("payment_reconciliation_exceptions").selectAll();
        if (status !== undefined) query = query.where("status", "=", status);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) =>
          rows.map(
            (r): OperatorException => ({
              id: String(r.id),
              merchantId: text(r.merchant_id),
              providerObject: String(r.provider_object),
              settlementWindow: String(r.settlement_window),
              kind: String(r.kind),
              subjectType: String(r.subject_type),
              subjectId: text(r.subject_id),
              expected: json(r.expected),
              observed: json(r.observed),
              currency: text(r.currency),
              status: String(r.status),
              resolution: json(r.resolution),
              openedAt: time(r.opened_at),
              resolvedAt: time(r.resolved_at),
            }),
          ),
        ),
      ),
  };
};
