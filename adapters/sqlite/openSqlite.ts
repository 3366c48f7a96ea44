/** The SQLite driver: better-sqlite3 under Kysely, tuned for an embedded, file-backed store. */
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { SqlDatabase } from "../sql/SqlDatabase.js";

/** Options for {@link openSqlite}. */
export interface SqliteOptions {
  /** A file path, or ":memory:" (WAL is then silently not used). */
  readonly filename: string;
}

/**
 * Opens a SQLite database. WAL lets readers run beside the single writer; busy_timeout makes a
 * second process wait for the write lock instead of failing at once.
 */
export const openSqlite = async ({ filename }: SqliteOptions): Promise<SqlDatabase> => {
  const database = new Database(filename);
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 5000");
  database.pragma("foreign_keys = ON");
  database.pragma("synchronous = NORMAL");
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  let closed = false;
  return {
    dialect: "sqlite",
    db,
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
};
