/**
 * The RealtimeBus on Postgres: one dedicated client LISTENs on a single channel; publishing is
 * `pg_notify` with a JSON payload, so a notice reaches every process on the same database.
 * Published inside a transaction, it goes out with the COMMIT and Postgres delivers it only when
 * the transaction commits (PostgresNotify.ts).
 */
import { Effect } from "effect";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import type { ClosableRealtimeBus } from "../sql/InProcessRealtimeBus.js";
import { listenPostgres } from "./PostgresListener.js";
import type { PostgresNotify } from "./PostgresNotify.js";
import { withSpan } from "../../core/kernel/Span.js";

/** The NOTIFY channel every domainkit process listens on. */
export const REALTIME_CHANNEL = "domainkit_realtime";

/** Connects a listener to `connectionString`; `notify` publishes (in the open transaction if any). */
export const postgresRealtimeBus = async (connectionString: string, notify: PostgresNotify): Promise<ClosableRealtimeBus> => {
  const listeners = new Set<(notice: RealtimeNotice) => void>();
  const deliver = (notice: RealtimeNotice): void => {
    for (const onNotice of listeners) {
      try {
        onNotice(notice);
      } catch {
        /* the listener's own problem */
      }
    }
  };
  let connectedBefore = false;
  // Reconnects on its own; notices are hints and the channel log is the truth, so after a
  // reconnection (notices sent meanwhile are lost) listeners are told to catch up from the log.
  const listener = listenPostgres(connectionString, REALTIME_CHANNEL, {
    onPayload: (payload) => {
      let notice: RealtimeNotice;
      try {
        notice = JSON.parse(payload) as RealtimeNotice;
      } catch {
        return;
      }
      deliver(notice);
    },
    onReady: () => {
      if (connectedBefore) deliver({ type: "resume" });
      connectedBefore = true;
    },
  });
  try {
    await listener.ready;
  } catch (error) {
    await listener.close();
    throw error;
  }
  return {
    publish: (notice) => notify(REALTIME_CHANNEL, JSON.stringify(notice)).pipe(withSpan("RealtimeBus.publish")),
    listen: (onNotice) =>
      Effect.sync(() => {
        listeners.add(onNotice);
        return () => void listeners.delete(onNotice);
      }),
    close: async () => {
      listeners.clear();
      await listener.close();
    },
  };
};
