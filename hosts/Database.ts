/** Opens the configured database (SQLite under DATA_DIR by default, Postgres when DATABASE_URL is set) and migrates it. */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { migrate, type ModuleMigrations } from "../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import { openPostgres } from "../adapters/postgres/openPostgres.js";
import { openSqlite } from "../adapters/sqlite/openSqlite.js";
import type { Config } from "./Config.js";

/** The SQLite file of the embedded default. */
export const sqliteFileOf = (config: Pick<Config, "dataDir">): string => path.join(config.dataDir, "domainkit.sqlite");

/** Opens the database the configuration names. */
export const openConfiguredDatabase = async (config: Pick<Config, "dataDir" | "databaseUrl">): Promise<SqlDatabase> => {
  if (config.databaseUrl !== undefined) return openPostgres({ connectionString: config.databaseUrl });
  mkdirSync(config.dataDir, { recursive: true });
  return openSqlite({ filename: sqliteFileOf(config) });
};

/** Applies what is pending of the kernel's and `modules`' migrations (a composition's `modules` fit). */
export const migrateModules = (database: SqlDatabase, modules: ReadonlyArray<ModuleMigrations>): Promise<{ applied: string[] }> =>
  migrate(database, modules);
