/**
 * Versioned migrations: each module registers its list; `migrate` applies what is missing, in
 * order (kernel first, then modules in registration order), each migration in its own
 * transaction, recorded in `domainkit_migrations`. Safe to run twice and from two processes at
 * once: Postgres serializes runners with a session advisory lock, SQLite with BEGIN IMMEDIATE.
 */
import { sql, type Kysely } from "kysely";
import { kernelMigrations } from "./kernelMigrations.js";
import type { Migration } from "./Migration.js";
import type { SqlDatabase } from "./SqlDatabase.js";

export type { Migration } from "./Migration.js";

const registry = new Map<string, ReadonlyArray<Migration>>();

/** Adds (or replaces) a module's migrations; call at import time of the module's SQL adapter. */
export const registerMigrations = (module: string, migrations: ReadonlyArray<Migration>): void => {
  const versions = new Set<number>();
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version < 1) throw new Error(`${module}: bad migration version ${m.version}`);
    if (versions.has(m.version)) throw new Error(`${module}: duplicate migration version ${m.version}`);
    versions.add(m.version);
  }
  registry.set(module, [...migrations].sort((a, b) => a.version - b.version));
};

registerMigrations("kernel", kernelMigrations);

/** Every registered module with its migrations, in the order `migrate` applies them. */
export const registeredMigrations = (): ReadonlyArray<{ readonly module: string; readonly migrations: ReadonlyArray<Migration> }> =>
  [...registry].map(([module, migrations]) => ({ module, migrations }));

/** The label recorded in `applied`, e.g. "kernel/0001_kernel_tables". */
export const migrationLabel = (module: string, m: Migration): string =>
  `${module}/${String(m.version).padStart(4, "0")}_${m.name}`;

// Any constant works; it only has to be the same for every domainkit process.
const ADVISORY_LOCK_KEY = 4_711_020_301;

const createLedger = (dialect: SqlDatabase["dialect"]): string =>
  `CREATE TABLE IF NOT EXISTS domainkit_migrations (
    module ${dialect === "sqlite" ? "TEXT" : "text"} NOT NULL,
    version integer NOT NULL,
    name ${dialect === "sqlite" ? "TEXT" : "text"} NOT NULL,
    applied_at ${dialect === "sqlite" ? "TEXT" : "timestamptz"} NOT NULL,
    PRIMARY KEY (module, version)
  )`;

const isApplied = async (conn: Kysely<any>, module: string, version: number): Promise<boolean> => {
  const row = await conn
    .selectFrom("domainkit_migrations")
    .select("version")
    .where("module", "=", module)
    .where("version", "=", version)
    .executeTakeFirst();
  return row !== undefined;
};

/** Applies every registered migration not yet recorded; returns the labels it applied. */
export const migrate = async (db: SqlDatabase): Promise<{ applied: string[] }> => {
  const applied: string[] = [];
  const plan = registeredMigrations();
  await db.db.connection().execute(async (conn) => {
    const postgres = db.dialect === "postgres";
    if (postgres) {
      await sql`SELECT pg_advisory_lock(${ADVISORY_LOCK_KEY})`.execute(conn);
    }
    try {
      if (postgres) await sql.raw(createLedger(db.dialect)).execute(conn);
      for (const { module, migrations } of plan) {
        for (const m of migrations) {
          await sql.raw(postgres ? "BEGIN" : "BEGIN IMMEDIATE").execute(conn);
          try {
            // On SQLite the ledger is created under the write lock, so two processes cannot race.
            if (!postgres) await sql.raw(createLedger(db.dialect)).execute(conn);
            if (!(await isApplied(conn, module, m.version))) {
              for (const statement of postgres ? m.postgres : m.sqlite) {
                await sql.raw(statement).execute(conn);
              }
              await conn
                .insertInto("domainkit_migrations")
                .values({
                  module,
                  version: m.version,
                  name: m.name,
                  applied_at: postgres ? new Date() : new Date().toISOString(),
                })
                .execute();
              applied.push(migrationLabel(module, m));
            }
            await sql.raw("COMMIT").execute(conn);
          } catch (error) {
            await sql.raw("ROLLBACK").execute(conn);
            throw new Error(`migration ${migrationLabel(module, m)} failed: ${String(error)}`, { cause: error });
          }
        }
      }
    } finally {
      if (postgres) await sql`SELECT pg_advisory_unlock(${ADVISORY_LOCK_KEY})`.execute(conn);
    }
  });
  return { applied };
};
