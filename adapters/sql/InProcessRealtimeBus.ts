/**
 * The RealtimeBus within one process (an in-memory SQLite database; the in-process part of
 * adapters/sqlite/SqliteRealtimeBus.ts, which carries notices between processes sharing a file). A
 * notice published inside a transaction is delivered once it commits (never after a rollback),
 * as Postgres delivers a NOTIFY: listeners that re-read the database see what it wrote.
 */
import { EventEmitter } from "node:events";
import { Effect } from "effect";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import type { ClosableRealtimeBus, SqlDatabase } from "./SqlDatabase.js";
import { afterCommit } from "./Transactions.js";

/** A RealtimeBus that can be closed. */
export type { ClosableRealtimeBus } from "./SqlDatabase.js";

// Shared per key (the database), so every bus built on one database hears the others.
const emitters = new WeakMap<object, EventEmitter>();

/** Each notice's own after-commit key (afterCommit runs one hook per key and transaction). */
let published = 0;

/** A bus delivering notices to every listener registered in this process for `database`. */
export const inProcessRealtimeBus = (database: SqlDatabase): ClosableRealtimeBus => {
  let emitter = emitters.get(database);
  if (emitter === undefined) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    emitters.set(database, emitter);
  }
  const shared = emitter;
  const mine = new Set<(notice: RealtimeNotice) => void>();
  return {
    publish: (notice) => Effect.suspend(() => afterCommit(database, `realtime-notice:${(published += 1)}`, () => void shared.emit("notice", notice))),
    listen: (onNotice) =>
      Effect.sync(() => {
        // A throwing listener must not stop delivery to the others.
        const safe = (notice: RealtimeNotice) => {
          try {
            onNotice(notice);
          } catch {
            /* the listener's own problem */
          }
        };
        shared.on("notice", safe);
        mine.add(safe);
        return () => {
          shared.off("notice", safe);
          mine.delete(safe);
        };
      }),
    close: async () => {
      for (const listener of mine) shared.off("notice", listener);
      mine.clear();
    },
  };
};
