/** The consumer Inbox over the `inbox` table: the primary key (consumer, event_id) dedupes. */
import { Clock, Effect } from "effect";
import type { Inbox } from "../../ports/Inbox.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { runQuery, span } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The Inbox port: true the first time (consumer, event id) is claimed, false after. */
export const makeSqlInbox = (db: SqlDatabase, f: DialectFeatures): Inbox => ({
  claim: (consumer, eventId) =>
    Effect.flatMap(Clock.currentTimeMillis, (millis) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("inbox")
          .values({ consumer, event_id: eventId, processed_at: f.timeToDb(new Date(millis)) })
          .onConflict((oc) => oc.columns(["consumer", "event_id"]).doNothing())
          .returning("event_id")
          .execute(),
      ),
    ).pipe(
      Effect.map((rows) => rows.length > 0),
      span("Inbox.claim"),
    ),
});
