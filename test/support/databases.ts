/**
 * The storage test harness. Every storage-touching test runs on both dialects; each call of
 * `openTestDatabase` gets its own fresh, migrated database (a temp SQLite file, or a Postgres
 * database on the shared server) that is closed at the test's teardown, then removed — or, on
 * Postgres, emptied for the next test of the process when provably as fresh as a new one.
 * It holds the kernel's and the modules' migrations, taken from the same module definitions the
 * hosts compose (no registry to import or change), copied from a template migrated once per run
 * (databaseTemplates.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import tap from "tap";
import { migrationLabel, type ModuleMigrations } from "../../adapters/sql/Migrations.js";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { ensurePostgres, startedPostgresHere, stopPostgres } from "./postgres.js";
import { kernelMigrations } from "../../adapters/sql/kernelMigrations.js";
import { copyMigratedSqliteDatabase, createMigratedPostgresDatabase, planHash, dropDatabase, withDatabase } from "./databaseTemplates.js";
import { dropRecycled, noteFreshCopy, recycle, takeRecycled } from "./recycledDatabases.js";

/** The dialects every storage test runs against. */
export const dialects = ["sqlite", "postgres"] as const;
/** One of {@link dialects}. */
export type Dialect = (typeof dialects)[number];

/** A tap test object, as handed to a subtest callback. */
export type TapTest = Parameters<Parameters<typeof tap.test>[0]>[0];

/** The minimum of a tap test the harness needs: a teardown hook. */
export interface HasTeardown {
  readonly teardown: (fn: () => unknown) => unknown;
}

let admin: pg.Pool | undefined;

const adminPool = async (): Promise<pg.Pool> => {
  if (admin !== undefined) return admin;
  const url = await ensurePostgres();
  admin = new pg.Pool({ connectionString: url, max: 3 });
  admin.on("error", () => undefined);
  const pool = admin;
  const stopHere = await startedPostgresHere();
  // The root test ends after every subtest: close the admin pool (and a server we started).
  tap.teardown(async () => {
    await dropRecycled(pool);
    await pool.end().catch(() => undefined);
    admin = undefined;
    if (stopHere) await stopPostgres();
  });
  return pool;
};

/**
 * Creates a fresh Postgres database with `create(admin, name)` and returns its connection string;
 * it is dropped at `t`'s teardown (after its connections are terminated).
 */
const createDroppedAtTeardown = async (t: HasTeardown, create: (admin: pg.Pool, name: string) => Promise<void>): Promise<string> => {
  const pool = await adminPool();
  const name = `dk_${randomBytes(8).toString("hex")}`;
  await create(pool, name);
  t.teardown(async () => {
    await dropDatabase(pool, name);
  });
  return withDatabase(await ensurePostgres(), name);
};

/**
 * Creates a fresh, empty Postgres database and returns its connection string; it is dropped at
 * `t`'s teardown (after its connections are terminated). For tests that open several pools.
 */
export const createTestPostgresDatabase = (t: HasTeardown): Promise<string> =>
  createDroppedAtTeardown(t, async (admin, name) => void (await admin.query(`CREATE DATABASE ${name}`)));

/** Creates a fresh temp directory for a SQLite file, removed at `t`'s teardown. */
export const createTestSqliteFile = (t: HasTeardown): string => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-sqlite-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "test.sqlite");
};

/** The label `migrate` reports for each kernel migration, in version order. */
export const kernelMigrationLabels = kernelMigrations.map((m) => migrationLabel("kernel", m));

/** The modules whose tables a test database gets by default: those of the reference server. */
export const testModules: ReadonlyArray<ModuleMigrations> = [projectsModule, paymentsModule];

/**
 * A fresh, isolated, migrated database of `dialect`, closed at `t`'s teardown and then removed
 * or recycled, with the tables of `modules` (the reference modules by default; `[]` for the
 * kernel's only).
 */
export const openTestDatabase = async (dialect: Dialect, t: HasTeardown, modules: ReadonlyArray<ModuleMigrations> = testModules): Promise<SqlDatabase> => {
  // A copy of the database `migrate(db, modules)` leaves behind, taken from a template migrated
  // once per run (databaseTemplates.ts), or on Postgres one emptied after an earlier test
  // (recycledDatabases.ts).
  const db =
    dialect === "sqlite"
      ? await openSqliteCopy(createTestSqliteFile(t), modules)
      : await openPostgres({ connectionString: await migratedPostgresDatabase(t, modules), max: 10 });
  // tap runs teardowns last-in first-out: the pool closes before its database is dropped or recycled.
  t.teardown(db.close);
  return db;
};

/**
 * A migrated Postgres database of `modules` for `t` alone (a copy of the run's template, or one
 * emptied after an earlier test), recycled (or dropped) at its teardown: its connection string.
 */
export const migratedPostgresDatabase = async (t: HasTeardown, modules: ReadonlyArray<ModuleMigrations>): Promise<string> => {
  const admin = await adminPool();
  const serverUrl = await ensurePostgres();
  const plan = planHash(modules);
  let name = takeRecycled(plan);
  if (name === undefined) {
    name = `dk_${randomBytes(8).toString("hex")}`;
    await createMigratedPostgresDatabase(admin, serverUrl, name, modules);
    await noteFreshCopy(plan, withDatabase(serverUrl, name));
  }
  const url = withDatabase(serverUrl, name);
  const taken = name;
  t.teardown(() => recycle(admin, plan, taken, url));
  return url;
};

const openSqliteCopy = async (filename: string, modules: ReadonlyArray<ModuleMigrations>): Promise<SqlDatabase> => {
  await copyMigratedSqliteDatabase(filename, modules);
  return openSqlite({ filename });
};

/**
 * Runs `fn` as one subtest per dialect, named `${name} [sqlite]` / `${name} [postgres]`, on a
 * database with the tables of `modules` (the reference modules by default).
 */
export const forEachDialect = (
  t: TapTest,
  name: string,
  fn: (t: TapTest, db: SqlDatabase) => Promise<void>,
  modules: ReadonlyArray<ModuleMigrations> = testModules,
): Promise<unknown> =>
  Promise.all(
    dialects.map((dialect) =>
      t.test(`${name} [${dialect}]`, async (sub) => {
        const db = await openTestDatabase(dialect, sub, modules);
        await fn(sub, db);
      }),
    ),
  );
