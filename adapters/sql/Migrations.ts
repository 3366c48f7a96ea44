/**
 * Versioned migrations: `migrate(db, modules)` applies what is missing of the kernel's migrations
 * (always first) and then of each given module's, in the given order, each migration in its own
 * transaction, recorded in `domainkit_migrations`. There is no global registry: a host passes the
 * modules it composes, so what a database gets is what the host mounts (docs/architecture.md,
 * Storage). Safe to run twice and from two processes at once: Postgres serializes runners with
 * a session advisory lock, SQLite with BEGIN IMMEDIATE.
 */
import { sql, type Kysely } from "kysely";
import { kernelMigrations } from "./kernelMigrations.js";
import type { Migration } from "./Migration.js";
import type { SqlDatabase } from "./SqlDatabase.js";

export type { Migration } from "./Migration.js";

/** A module's migrations as `migrate` takes them (a ModuleDefinition fits). */
export interface ModuleMigrations {
  readonly name: string;
  readonly migrations?: ReadonlyArray<Migration> | undefined;
}

/** The name the kernel's migrations are recorded under. */
export const kernelModuleName = "kernel";

/**
 * The plan `migrate` applies: the kernel's migrations, then each module's in version order.
 * Throws on a bad or duplicate version, on a module named twice and on a module named "kernel".
 */
export const migrationPlan = (
  modules: ReadonlyArray<ModuleMigrations>,
): ReadonlyArray<{ readonly module: string; readonly migrations: ReadonlyArray<Migration> }> => {
  const seen = new Set<string>();
  return [{ name: kernelModuleName, migrations: kernelMigrations }, ...modules].map(({ name, migrations = [] }) => {
    if (seen.has(name)) throw new Error(name === kernelModuleName ? `a module may not be named "${kernelModuleName}"` : `module "${name}" is migrated twice`);
    seen.add(name);
    const versions = new Set<number>();
    for (const m of migrations) {
      if (!Number.isInteger(m.version) || m.version < 1) throw new Error(`${name}: bad migration version ${m.version}`);
      if (versions.has(m.version)) throw new Error(`${name}: duplicate migration version ${m.version}`);
      versions.add(m.version);
    }
    return { module: name, migrations: [...migrations].sort((a, b) => a.version - b.version) };
  });
};


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

/** Applies the kernel's and `modules`' migrations not yet recorded; returns the labels it applied. */
export const migrate = async (db: SqlDatabase, modules: ReadonlyArray<ModuleMigrations> = []): Promise<{ applied: string[] }> => {
  const applied: string[] = [];
  const plan = migrationPlan(modules);
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
