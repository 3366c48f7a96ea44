/** The Payables port over dl_payables (append-only; component keys unique). */
import { Effect } from "effect";
import { Payable } from "../../../core/delivery/model/Payable.js";
import type { Payables } from "../../../ports/delivery/Payables.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the payables over `db`. */
export const makeSqlPayables = (db: SqlDatabase): Payables => {
  const f = featuresFor(db);
  const rows = rowCodec(Payable, f);
  return {
    record: (list) =>
      list.length === 0
        ? Effect.succeed(0)
        : runQuery(db, (ex) =>
            ex
              .insertInto("dl_payables")
              .values(list.map(rows.toRow))
              .onConflict((oc) => oc.column("component_key").doNothing())
              .executeTakeFirst(),
          ).pipe(
            Effect.map((result) => toNumber(result.numInsertedOrUpdatedRows ?? 0n)),
            withSpan("Payables.record"),
          ),
    recordReplay: (replay) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("dl_settlement_replays")
          .values({ id: replay.id, job_id: replay.jobId, order_id: replay.orderId, actor_id: replay.actorId, reason: replay.reason, at: f.timeToDb(replay.at) })
          .execute(),
      ).pipe(Effect.asVoid, withSpan("Payables.recordReplay")),
    ofOrder: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_payables").selectAll().where("order_id", "=", orderId).orderBy("component_key").execute()).pipe(
        Effect.map((list) => list.map(rows.fromRow)),
        withSpan("Payables.ofOrder"),
      ),
  };
};
