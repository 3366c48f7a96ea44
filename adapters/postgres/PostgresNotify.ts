/**
 * `SELECT pg_notify(channel, payload)` on the executor of the moment, the one way the realtime bus
 * and the work signals send a notice. Inside a transaction it is sent without waiting for its
 * answer (it goes out with the transaction's next statement or its COMMIT, and Postgres delivers
 * it only when the transaction commits); outside one it is waited for.
 */
import { sql } from "kysely";
import type { Effect } from "effect";
import { compiledOnce, sendStatement } from "../sql/runQuery.js";
import type { SqlDatabase } from "../sql/SqlDatabase.js";

/** Sends a notice on `channel`; infrastructure failures are defects. */
export type PostgresNotify = (channel: string, payload: string) => Effect.Effect<void>;

/** The notify of one database (its statement compiled once). */
export const postgresNotify = (db: SqlDatabase): PostgresNotify => {
  const notify = compiledOnce<{ channel: string; payload: string }>((_, p) => sql`SELECT pg_notify(${p("channel")}, ${p("payload")})`);
  return (channel, payload) => sendStatement(db, notify, { channel, payload });
};
