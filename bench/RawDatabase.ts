/**
 * A direct driver handle on the benchmark's database: better-sqlite3 on the server's SQLite
 * file, or a pg Pool on its Postgres database. Raw baselines run their SQL through it, with no
 * Kysely, no Effect and no HTTP in between.
 */
import Database from "better-sqlite3";
import pg from "pg";

/** A raw driver handle, by dialect. */
export type RawDatabase =
  | { readonly dialect: "sqlite"; readonly sqlite: Database.Database; readonly filename: string }
  | { readonly dialect: "postgres"; readonly pool: pg.Pool };

/**
 * Opens the SQLite file with the pragmas adapters/sqlite/openSqlite.ts sets, but for the busy
 * timeout: the lock this handle meets is the server's, in this process, and waiting in the driver
 * blocks the very event loop that is to release it; a locked operation fails at once and is run
 * again after yielding (RawLoop.ts retryWhileLocked).
 */
export const openRawSqlite = (filename: string): RawDatabase & { close(): Promise<void> } => {
  const sqlite = new Database(filename);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 0");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  return { dialect: "sqlite", sqlite, filename, close: async () => void sqlite.close() };
};

/** Opens a pool of the server's default size (10) on the Postgres database. */
export const openRawPostgres = (connectionString: string, max = 10): RawDatabase & { close(): Promise<void> } => {
  const pool = new pg.Pool({ connectionString, max });
  pool.on("error", () => undefined);
  return { dialect: "postgres", pool, close: () => pool.end() };
};
