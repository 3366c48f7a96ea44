/** Opens the configured database (SQLite under DATA_DIR by default, Postgres when DATABASE_URL is set) and migrates it. */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { migrate, registerMigrations } from "../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import { openPostgres } from "../adapters/postgres/openPostgres.js";
import { openSqlite } from "../adapters/sqlite/openSqlite.js";
import type { Config } from "./Config.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";

/** The SQLite file of the embedded default. */
export const sqliteFileOf = (config: Pick<Config, "dataDir">): string => path.join(config.dataDir, "domainkit.sqlite");

/** Opens the database the configuration names. */
export const openConfiguredDatabase = async (config: Pick<Config, "dataDir" | "databaseUrl">): Promise<SqlDatabase> => {
  if (config.databaseUrl !== undefined) return openPostgres({ connectionString: config.databaseUrl });
  mkdirSync(config.dataDir, { recursive: true });
  return openSqlite({ filename: sqliteFileOf(config) });
};

/** Registers the migrations of `modules` (registering again replaces) and applies what is pending. */
export const migrateModules = async (
  database: SqlDatabase,
  modules: ReadonlyArray<ModuleDefinition>,
): Promise<{ applied: string[] }> => {
  for (const module of modules) if (module.migrations !== undefined) registerMigrations(module.name, module.migrations);
  return migrate(database);
};
