/**
 * The RealtimeBus on Postgres: one dedicated client LISTENs on a single channel; publishing is
 * `pg_notify` with a JSON payload, so a notice reaches every process on the same database.
 * Published inside a transaction, Postgres delivers the notice only when it commits.
 */
import { Effect } from "effect";
import pg from "pg";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import type { ClosableRealtimeBus } from "../sqlite/InProcessRealtimeBus.js";
import { sql, type Kysely } from "kysely";

/** The NOTIFY channel every domainkit process listens on. */
export const REALTIME_CHANNEL = "domainkit_realtime";

/**
 * Connects a listener to `connectionString`; `publishOn` yields the executor to notify on (the
 * open transaction if any, so notices follow the commit).
 */
export const postgresRealtimeBus = async (
  connectionString: string,
  publishOn: Effect.Effect<Kysely<any>>,
): Promise<ClosableRealtimeBus> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  // A lost listener connection must not crash the host; notices are hints, the log is the truth.
  client.on("error", () => undefined);
  const listeners = new Set<(notice: RealtimeNotice) => void>();
  client.on("notification", (message) => {
    if (message.channel !== REALTIME_CHANNEL || message.payload === undefined) return;
    let notice: RealtimeNotice;
    try {
      notice = JSON.parse(message.payload) as RealtimeNotice;
    } catch {
      return;
    }
    for (const listener of listeners) {
      try {
        listener(notice);
      } catch {
        /* the listener's own problem */
      }
    }
  });
  await client.query(`LISTEN ${REALTIME_CHANNEL}`);
  let closed = false;
  return {
    publish: (notice) =>
      Effect.flatMap(publishOn, (executor) =>
        Effect.tryPromise(() => sql`SELECT pg_notify(${REALTIME_CHANNEL}, ${JSON.stringify(notice)})`.execute(executor)),
      ).pipe(Effect.orDie, Effect.asVoid, Effect.withSpan("RealtimeBus.publish")),
    listen: (onNotice) =>
      Effect.sync(() => {
        listeners.add(onNotice);
        return () => void listeners.delete(onNotice);
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      listeners.clear();
      await client.end().catch(() => undefined);
    },
  };
};
