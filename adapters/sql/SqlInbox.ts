/** The consumer Inbox over the `inbox` table: the primary key (consumer, event_id) dedupes. */
import { Clock, Effect } from "effect";
import { sql } from "kysely";
import type { Inbox } from "../../ports/Inbox.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { compiledOnce, runQuery, runStatement, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The Inbox port: true the first time (consumer, event id) is claimed, false after. */
export const makeSqlInbox = (db: SqlDatabase, f: DialectFeatures): Inbox => {
  const insert = compiledOnce<{ consumer: string; eventId: string; at: unknown }>((ex, p) =>
    ex
      .insertInto("inbox")
      .values({ consumer: p("consumer"), event_id: p("eventId"), processed_at: p("at") })
      .onConflict((oc) => oc.columns(["consumer", "event_id"]).doNothing())
      .returning("event_id"),
  );
  return {
    claim: (consumer, eventId) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) =>
        runStatement(db, insert, { consumer, eventId, at: f.timeToDb(new Date(millis)) }),
      ).pipe(
        Effect.map((result) => result.rows.length > 0),
        span("Inbox.claim"),
      ),
    claimMany: (consumer, eventIds) =>
      eventIds.length === 0
        ? Effect.succeed(new Set<string>())
        : Effect.flatMap(Clock.currentTimeMillis, (millis) => {
            const at = f.timeToDb(new Date(millis));
            // In one order for every caller: Postgres inserts the rows in the order given, and two
            // transactions claiming the same events in opposite orders each waited for the other's
            // row (a deadlock, which the contract kit's race met on CI).
            const ordered = [...eventIds].sort();
            return runQuery(db, (ex) =>
              ex
                .insertInto("inbox")
                .values(ordered.map((eventId) => ({ consumer, event_id: eventId, processed_at: at })))
                .onConflict((oc) => oc.columns(["consumer", "event_id"]).doNothing())
                .returning("event_id")
                .execute(),
            );
          }).pipe(
            Effect.map((rows) => new Set(rows.map((row) => row.event_id))),
            span("Inbox.claimMany"),
          ),
    purgeProcessed: (before, limit) =>
      runQuery(db, (ex) => {
        // Oldest first by kernel migration 5's inbox_processed; an event the outbox still holds
        // (pending or dead) may be delivered again, so its records stay. The batch is located by
        // row (the table's key has two columns).
        const batch = ex
          .selectFrom("inbox as i")
          .select(sql.ref(`i.${f.rowLocator}`).as("locator"))
          .where("i.processed_at", "<", f.timeToDb(before))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("outbox as o")
                  .select(sql.lit(1).as("held"))
                  .whereRef("o.id", "=", "i.event_id")
                  // Two literals, the predicates of the outbox's partial indexes on Postgres.
                  .where((eb) => eb.or([eb("o.status", "=", sql.lit("pending")), eb("o.status", "=", sql.lit("dead"))])),
              ),
            ),
          )
          .orderBy("i.processed_at")
          .limit(limit);
        return ex.deleteFrom("inbox").where(f.keyInBatch(f.rowLocator, batch)).executeTakeFirst();
      }).pipe(
        Effect.map((result) => toNumber(result.numDeletedRows)),
        span("Inbox.purgeProcessed"),
      ),
  };
};
