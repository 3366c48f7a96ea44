/**
 * Migrated templates for the test databases. Migrating every test's database from scratch cost
 * ~0.2–0.3 s on Postgres (hundreds of DDL round trips) and was most of the contract kits' time;
 * a database cloned from an already migrated template gets the same tables for the price of
 * CREATE DATABASE ... TEMPLATE (Postgres) or a file copy (SQLite).
 *
 * A template is named after a hash of the exact migration plan it holds (every module's name,
 * versions and statements of both dialects), so a changed migration gets a new template and a
 * stale one is never used. On Postgres the template is shared by every test process of the run:
 * the first builds it under an advisory lock, under a temporary name, and renames it when it is
 * complete; the others wait for the lock and find it. `scripts/test.js` drops the templates at
 * the end of the run (`dropPostgresTemplates`). On SQLite each process keeps its own template
 * file in a temp directory removed at exit.
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { migrate, migrationPlan, type ModuleMigrations } from "../../adapters/sql/Migrations.js";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";

// Every template's name starts with one of these (dropPostgresTemplates finds them by "dk_tpl").
const templatePrefix = "dk_tpl_";
const buildPrefix = "dk_tplbuild_";

/** The hash naming the template of `modules`' migration plan. */
export const planHash = (modules: ReadonlyArray<ModuleMigrations>): string =>
  createHash("sha256").update(JSON.stringify(migrationPlan(modules))).digest("hex").slice(0, 24);

/** `url` (a server's connection string) naming the database `database` instead. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

/** Ends every session on the database `name`, then drops it. */
export const dropDatabase = async (admin: pg.Pool, name: string): Promise<void> => {
  await endSessions(admin, name);
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
};

/** Ends every session on the database `name` (but the caller's). */
export const endSessions = async (admin: pg.Pool | pg.PoolClient, name: string): Promise<void> => {
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
};

// One lock for every template build of every process: builds are rare and short.
const TEMPLATE_LOCK_KEY = 4_711_020_302;

const postgresTemplates = new Map<string, Promise<string>>();

const buildPostgresTemplate = async (admin: pg.Pool, serverUrl: string, name: string, modules: ReadonlyArray<ModuleMigrations>): Promise<string> => {
  const client = await admin.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount === 0) {
        const building = `${buildPrefix}${randomBytes(6).toString("hex")}`;
        await client.query(`CREATE DATABASE ${building}`);
        const db = await openPostgres({ connectionString: withDatabase(serverUrl, building), max: 1 });
        try {
          await migrate(db, modules);
        } finally {
          await db.close();
        }
        // The pool's backend may still be leaving: a database is renamed only with no session on it.
        await endSessions(client, building);
        await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
  return name;
};

/**
 * Creates the database `database` on the server of `admin` as a copy of the migrated template of
 * `modules`, building the template first when this run has none yet.
 */
export const createMigratedPostgresDatabase = async (
  admin: pg.Pool,
  serverUrl: string,
  database: string,
  modules: ReadonlyArray<ModuleMigrations>,
): Promise<void> => {
  const name = `${templatePrefix}${planHash(modules)}`;
  for (let attempt = 0; ; attempt++) {
    let template = postgresTemplates.get(name);
    if (template === undefined) {
      template = buildPostgresTemplate(admin, serverUrl, name, modules);
      postgresTemplates.set(name, template);
      template.catch(() => postgresTemplates.delete(name));
    }
    await template;
    try {
      await admin.query(`CREATE DATABASE ${database} TEMPLATE ${name}`);
      return;
    } catch (error) {
      // 3D000: the template was dropped under us (another run's end); build it again, once.
      if ((error as { code?: string }).code !== "3D000" || attempt > 0) throw error;
      postgresTemplates.delete(name);
    }
  }
};

/**
 * Drops every template database on the server of `admin`, and any build a crashed process left
 * (a template still being cloned is left).
 */
export const dropPostgresTemplates = async (admin: pg.Pool): Promise<void> => {
  // Under the builds' lock: another run on the same server may be building a template right now
  // (its build database is named dk_tplbuild_...), and dropping it under that run failed its tests.
  const client = await admin.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'dk\\_tpl%'");
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
};

let sqliteTemplateDir: string | undefined;
const sqliteTemplates = new Map<string, Promise<string>>();

const buildSqliteTemplate = async (file: string, modules: ReadonlyArray<ModuleMigrations>): Promise<string> => {
  // No checkpointer thread: closing the connections checkpoints the WAL into the file.
  const db = await openSqlite({ filename: file, checkpointIntervalMs: 0, readConnection: false });
  try {
    await migrate(db, modules);
  } finally {
    await db.close();
  }
  if (existsSync(`${file}-wal`)) throw new Error(`the SQLite template ${file} kept its WAL after closing`);
  return file;
};

/** Copies the migrated SQLite template of `modules` to `filename` (building it first in this process). */
export const copyMigratedSqliteDatabase = async (filename: string, modules: ReadonlyArray<ModuleMigrations>): Promise<void> => {
  if (sqliteTemplateDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "domainkit-sqlite-templates-"));
    sqliteTemplateDir = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  const hash = planHash(modules);
  let template = sqliteTemplates.get(hash);
  if (template === undefined) {
    template = buildSqliteTemplate(join(sqliteTemplateDir, `${hash}.sqlite`), modules);
    sqliteTemplates.set(hash, template);
    template.catch(() => sqliteTemplates.delete(hash));
  }
  copyFileSync(await template, filename);
};
