/** The SQLite driver: better-sqlite3 under Kysely, tuned for an embedded, file-backed store. */
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { Kysely } from "kysely";
import { inProcessRealtimeBus } from "../sql/InProcessRealtimeBus.js";
import { sqliteRealtimeBus } from "./SqliteRealtimeBus.js";
import { inProcessWorkSignals } from "../sql/InProcessWorkSignals.js";
import { afterCommit } from "../sql/Transactions.js";
import { sqliteFeatures } from "./sqliteFeatures.js";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import { sqliteDialects } from "./SqliteConnections.js";
import type { GroupCommitLimits } from "./GroupCommit.js";
import { watchWal, type WalWatcher } from "./WalWatcher.js";
import { startWalCheckpointer, writerCheckpointBoundPages, type WalCheckpointer } from "./WalCheckpointer.js";
import { workKinds } from "../../ports/WorkSignals.js";

/** Options for {@link openSqlite}. */
export interface SqliteOptions {
  /** A file path, or ":memory:" (WAL is then silently not used). */
  readonly filename: string;
  /** Prepared statements cached per connection (default 500). */
  readonly statementCacheSize?: number;
  /**
   * Opens a second, query-only connection for SELECTs issued outside a transaction, so they do
   * not wait for an open write transaction (default true; never for an in-memory database).
   */
  readonly readConnection?: boolean;
  /**
   * Hear another process's commits to the file at once (a `domainkit worker` beside the server):
   * the WAL file is watched, and each change wakes the outbox relay and the job runner, and reads
   * the realtime notices other processes wrote (SqliteRealtimeBus.ts), instead of at their next
   * poll. Default false (one process owns the file and its own commits already wake it); never
   * for an in-memory database.
   */
  readonly watchOtherProcesses?: boolean;
  /**
   * This process's realtime notices are for other processes (a `domainkit worker` or a one-off
   * command beside the server): each is also written to the file in its transaction, where the
   * server's bus reads it (SqliteRealtimeBus.ts). Default false; never for an in-memory database.
   */
  readonly shareRealtimeNotices?: boolean;
  /**
   * Checkpoint the WAL from a thread of its own every this many milliseconds (default 100), so
   * no COMMIT on this process's event loop pays for a checkpoint (WalCheckpointer.ts); 0 leaves
   * checkpoints to SQLite's automatic ones inside commits. Never for an in-memory database.
   */
  readonly checkpointIntervalMs?: number;
  /**
   * Transactions queued for the write connection share one COMMIT (GroupCommit.ts): at most
   * `maxMembers` (default 16) and while the shared transaction is younger than `maxOpenMs`
   * (default 5). `{ maxMembers: 1, maxOpenMs: 0 }` commits every transaction on its own.
   */
  readonly groupCommit?: GroupCommitLimits;
}

const inMemory = (filename: string): boolean => filename === "" || filename === ":memory:" || filename.startsWith("file::memory:");

/**
 * Opens a SQLite database. WAL lets readers run beside the single writer; busy_timeout makes a
 * second process wait for the write lock instead of failing at once.
 */
export const openSqlite = async ({
  filename,
  statementCacheSize,
  readConnection,
  watchOtherProcesses,
  shareRealtimeNotices,
  checkpointIntervalMs = 100,
  groupCommit,
}: SqliteOptions): Promise<SqlDatabase> => {
  const writer = new Database(filename);
  writer.pragma("journal_mode = WAL");
  writer.pragma("busy_timeout = 5000");
  writer.pragma("foreign_keys = ON");
  writer.pragma("synchronous = NORMAL");
  // Savepoints (a group commit's members, an idempotent request's work) journal the pages they
  // change; past 64 KiB SQLite spills that journal to a temporary file, a file's system calls
  // per transaction. In memory it stays a copy.
  writer.pragma("temp_store = MEMORY");
  let reader: Database.Database | undefined;
  if (readConnection !== false && !inMemory(filename) && writer.pragma("journal_mode", { simple: true }) === "wal") {
    // Opened after the writer switched the file to WAL: a WAL reader sees every committed write
    // and is never blocked by the writer. query_only makes a routing mistake fail loudly.
    reader = new Database(filename);
    reader.pragma("busy_timeout = 5000");
    reader.pragma("query_only = ON");
  }
  let checkpointer: WalCheckpointer | undefined;
  if (checkpointIntervalMs > 0 && !inMemory(filename) && writer.pragma("journal_mode", { simple: true }) === "wal") {
    checkpointer = startWalCheckpointer(filename, checkpointIntervalMs);
    writer.pragma(`wal_autocheckpoint = ${writerCheckpointBoundPages}`);
  }
  const dialects = sqliteDialects({ writer, reader, cacheSize: statementCacheSize, groupCommit, file: inMemory(filename) ? undefined : resolve(filename) });
  const db = new Kysely<any>({ dialect: dialects.writer });
  const autocommit = new Kysely<any>({ dialect: dialects.autocommit });
  const exclusive = dialects.exclusive((held) => new Kysely<any>({ dialect: held }));
  let closed = false;
  let watcher: WalWatcher | undefined;
  const database: SqlDatabase = {
    dialect: "sqlite",
    db,
    autocommit,
    transactionConnections: exclusive,
    runNow: dialects.runNow({ held: exclusive.executor, autocommit }),
    features: sqliteFeatures,
    // Commits wake in-process listeners; with watchOtherProcesses, other processes' commits too.
    workSignals: () => {
      const signals = inProcessWorkSignals(database, (key, hook) => afterCommit(database, key, hook));
      if (watchOtherProcesses === true && !inMemory(filename) && watcher === undefined) watcher = watchWal(filename, () => workKinds.forEach(signals.emit));
      return signals;
    },
    // Another process's notices are read from the file (written by a worker or a command beside this process).
    realtimeBus: async () =>
      inMemory(filename)
        ? inProcessRealtimeBus(database)
        : sqliteRealtimeBus(database, { filename: resolve(filename), share: shareRealtimeNotices === true, watch: watchOtherProcesses === true }),
    close: async () => {
      if (closed) return;
      closed = true;
      watcher?.close();
      await db.destroy();
      await checkpointer?.close();
    },
  };
  return database;
};
