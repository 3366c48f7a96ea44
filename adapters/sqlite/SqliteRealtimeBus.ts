/**
 * The RealtimeBus of a SQLite file, across the processes that share it: a server and a
 * `domainkit worker` beside it, or a one-off command (`domainkit revoke`). Notices of this process
 * reach its own listeners after commit (InProcessRealtimeBus.ts). A process that shares its notices
 * also writes each one to the file's `realtime_notices` table in the publishing transaction, so it
 * is seen by the others when, and only if, that transaction commits, as a NOTIFY is on Postgres.
 * A listening process reads the rows other processes wrote after it began to listen: at once on
 * their commits when it watches the file (WalWatcher.ts), and every `pollMs` in any case. SQLite
 * has one writer at a time, so `seq` order is commit order and a reader never skips a row that
 * commits later with a smaller `seq`. Rows older than `keepMs` are deleted by their writers.
 */
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { Effect } from "effect";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import { inProcessRealtimeBus } from "../sql/InProcessRealtimeBus.js";
import { compiledOnce, runStatement } from "../sql/runQuery.js";
import type { ClosableRealtimeBus, SqlDatabase } from "../sql/SqlDatabase.js";
import { watchWal, type WalWatcher } from "./WalWatcher.js";

/** How the bus of one process takes part. */
export interface SharedNoticeOptions {
  /** The database file (not in memory). */
  readonly filename: string;
  /** Write this process's notices to the file for the other processes (a worker, a command). */
  readonly share: boolean;
  /** Read the others' notices at once on their commits (WAL watch); otherwise every `pollMs` only. */
  readonly watch: boolean;
  /** How often a listening process reads the others' notices without a wake-up (default 250 ms). */
  readonly pollMs?: number;
  /** How long a written notice stays in the file (default 10 minutes). */
  readonly keepMs?: number;
}

/** Rows one read delivers; a longer backlog is read on in the same pass. */
const readBatch = 500;
/** A sharing process deletes old rows once in this many publishes. */
const trimEvery = 256;

const insertNotice = compiledOnce<{ origin: string; notice: string; at: number }>((db, p) =>
  db.insertInto("realtime_notices").values({ origin: p("origin"), notice: p("notice"), created_at: p("at") }),
);
const trimNotices = compiledOnce<{ before: number }>((db, p) => db.deleteFrom("realtime_notices").where("created_at", "<", p("before")));

/** A read-only handle of its own on the file, with the two reads prepared (fails while the table is not migrated). */
const openReader = (filename: string) => {
  const handle = new Database(filename, { readonly: true, fileMustExist: true });
  try {
    return {
      head: handle.prepare(`SELECT coalesce(max(seq), 0) AS seq FROM realtime_notices`),
      after: handle.prepare(`SELECT seq, origin, notice FROM realtime_notices WHERE seq > ? ORDER BY seq LIMIT ${readBatch}`),
      close: () => handle.close(),
    };
  } catch (error) {
    handle.close();
    throw error;
  }
};

/** A bus over `database` (a SQLite file) that carries notices between the processes sharing it. */
export const sqliteRealtimeBus = (database: SqlDatabase, options: SharedNoticeOptions): ClosableRealtimeBus => {
  const local = inProcessRealtimeBus(database);
  const origin = randomUUID();
  const pollMs = options.pollMs ?? 250;
  const keepMs = options.keepMs ?? 10 * 60_000;
  let published = 0;

  const listeners = new Set<(notice: RealtimeNotice) => void>();
  let reader: { readonly head: Database.Statement; readonly after: Database.Statement; readonly close: () => void } | undefined;
  let lastSeq: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let watcher: WalWatcher | undefined;
  let closed = false;

  const deliver = (notice: RealtimeNotice): void => {
    for (const onNotice of listeners) {
      try {
        onNotice(notice);
      } catch {
        /* the listener's own problem */
      }
    }
  };

  /** Delivers the others' notices committed since the last read. */
  const readOthers = (): void => {
    if (closed || listeners.size === 0) return;
    try {
      reader ??= openReader(options.filename);
      if (lastSeq === undefined) {
        // Notices from the moment this process listens, as LISTEN hears them.
        lastSeq = (reader.head.get() as { seq: number }).seq;
        return;
      }
      for (;;) {
        const rows = reader.after.all(lastSeq) as ReadonlyArray<{ seq: number; origin: string; notice: string }>;
        for (const row of rows) {
          lastSeq = row.seq;
          // This process's own notices reached its listeners after their commit already.
          if (row.origin !== origin) deliver(JSON.parse(row.notice) as RealtimeNotice);
        }
        if (rows.length < readBatch) break;
      }
    } catch {
      // The table is not migrated yet, or the file is being closed: the next read tries again.
    }
  };

  const startReading = (): void => {
    if (timer !== undefined) return;
    readOthers();
    timer = setInterval(readOthers, pollMs);
    timer.unref();
    if (options.watch) watcher = watchWal(options.filename, readOthers, 2);
  };
  const stopReading = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    watcher?.close();
    watcher = undefined;
    lastSeq = undefined;
    reader?.close();
    reader = undefined;
  };

  const share = (notice: RealtimeNotice): Effect.Effect<void> =>
    Effect.suspend(() => {
      const at = Date.now();
      published += 1;
      const written = runStatement(database, insertNotice, { origin, notice: JSON.stringify(notice), at });
      return published % trimEvery === 0 ? Effect.zipRight(written, runStatement(database, trimNotices, { before: at - keepMs })) : written;
    }).pipe(Effect.asVoid);

  return {
    publish: options.share ? (notice) => Effect.zipRight(share(notice), local.publish(notice)) : local.publish,
    listen: (onNotice) =>
      Effect.flatMap(local.listen(onNotice), (stopLocal) =>
        Effect.sync(() => {
          listeners.add(onNotice);
          startReading();
          return () => {
            stopLocal();
            listeners.delete(onNotice);
            if (listeners.size === 0) stopReading();
          };
        }),
      ),
    close: async () => {
      closed = true;
      listeners.clear();
      stopReading();
      await local.close();
    },
  };
};
