/**
 * Opens the configured database (SQLite under DATA_DIR by default, Postgres when DATABASE_URL is
 * set) and migrates it. A Postgres that is not reachable yet (a container started before its
 * database) is retried with backoff for STARTUP_DB_WAIT_SECONDS, one log line per attempt; then,
 * or at once for errors that waiting cannot fix (wrong password, missing database), start-up
 * fails with a one-line `StartupError`. URLs in every message have their credentials redacted.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { migrate, migrationLabel, migrationPlan, type ModuleMigrations } from "../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import { openPostgres } from "../adapters/postgres/openPostgres.js";
import { openSqlite } from "../adapters/sqlite/openSqlite.js";
import { isTransientConnectError } from "../adapters/sql/TransientErrors.js";
import { redactUrl } from "../adapters/observability/Redact.js";
import type { Config } from "./Config.js";

/** A start-up failure an operator fixes outside the program (connectivity, permissions); its message is one line. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** Where the per-attempt lines of the database wait go (a pino logger fits). */
export interface StartupLog {
  readonly warn: (fields: Record<string, unknown>, message: string) => void;
  readonly info: (fields: Record<string, unknown>, message: string) => void;
}

/** The SQLite file of the embedded default. */
export const sqliteFileOf = (config: Pick<Config, "dataDir">): string => path.join(config.dataDir, "domainkit.sqlite");

// The one classification of transient connection errors is the SQL adapter's (the HTTP error mapper uses it too).
export { isTransientConnectError };

/** A one-line description of a connection error, credentials redacted. */
export const describeError = (error: unknown): string => {
  const e = error as { message?: unknown; code?: unknown; errors?: ReadonlyArray<{ message?: unknown }> };
  let text = typeof e?.message === "string" && e.message !== "" ? e.message : "";
  if (text === "" && Array.isArray(e?.errors)) text = e.errors.map((inner) => String(inner?.message ?? "")).filter(Boolean).join("; ");
  if (text === "") text = typeof e?.code === "string" ? e.code : String(error);
  return redactUrl(text.replace(/\s+/g, " ").trim());
};

// Without a logger (one-off commands), attempt lines go to stderr as plain text.
const stderrLog: StartupLog = {
  warn: (_fields, message) => void process.stderr.write(`${message}\n`),
  info: (_fields, message) => void process.stderr.write(`${message}\n`),
};

/** One connection attempt on a throwaway client, with a bounded connect time. */
const probePostgres = async (connectionString: string, timeoutMs: number): Promise<void> => {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * Waits until Postgres at `url` accepts a connection, retrying transient failures with backoff
 * (0.25 s doubling to 5 s) for `waitSeconds`. Throws StartupError when it gives up.
 */
export const waitForPostgres = async (
  url: string,
  waitSeconds: number,
  log: StartupLog | undefined,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> => {
  const shown = redactUrl(url);
  const deadline = Date.now() + waitSeconds * 1000;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    try {
      await probePostgres(url, Math.max(1000, Math.min(5000, left)));
      if (attempt > 1) (log ?? stderrLog).info({ attempt, database: shown }, `database reachable (attempt ${attempt})`);
      return;
    } catch (error) {
      const reason = describeError(error);
      if (!isTransientConnectError(error)) {
        throw new StartupError(`database at ${shown} refused the connection: ${reason} (check DATABASE_URL)`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new StartupError(
          `database at ${shown} is unreachable after ${attempt} attempt${attempt === 1 ? "" : "s"} over ${waitSeconds} s: ${reason} (STARTUP_DB_WAIT_SECONDS=${waitSeconds})`,
        );
      }
      const wait = Math.min(delay, remaining);
      (log ?? stderrLog).warn(
        { attempt, retry_in_ms: wait, database: shown, error: reason },
        `database not reachable (attempt ${attempt}): ${reason}; retrying in ${wait} ms`,
      );
      await sleep(wait);
      delay = Math.min(delay * 2, 5000);
    }
  }
};

/**
 * How a process shares a SQLite file with the other processes of a deployment (Postgres needs
 * neither: LISTEN/NOTIFY crosses processes): `watchOtherProcesses` hears their commits at once
 * (a `domainkit worker`, or a server whose worker runs apart), `shareRealtimeNotices` writes this
 * process's realtime notices to the file for the server (a worker, a one-off command).
 */
export interface SharedFileOptions {
  readonly watchOtherProcesses?: boolean;
  readonly shareRealtimeNotices?: boolean;
}

/**
 * Opens the database the configuration names; for Postgres, first waits for it
 * (`startupDbWaitSeconds`, default 30). Fails with a one-line StartupError.
 */
export const openConfiguredDatabase = async (
  config: Pick<Config, "dataDir" | "databaseUrl"> & { readonly startupDbWaitSeconds?: number; readonly databasePoolMax?: number },
  log?: StartupLog,
  options: SharedFileOptions = {},
): Promise<SqlDatabase> => {
  if (config.databaseUrl !== undefined) {
    await waitForPostgres(config.databaseUrl, config.startupDbWaitSeconds ?? 30, log);
    return openPostgres({ connectionString: config.databaseUrl, ...(config.databasePoolMax !== undefined ? { max: config.databasePoolMax } : {}) });
  }
  try {
    mkdirSync(config.dataDir, { recursive: true });
    return await openSqlite({
      filename: sqliteFileOf(config),
      watchOtherProcesses: options.watchOtherProcesses === true,
      shareRealtimeNotices: options.shareRealtimeNotices === true,
    });
  } catch (error) {
    throw new StartupError(`cannot open the SQLite database ${sqliteFileOf(config)}: ${describeError(error)} (check DATA_DIR)`);
  }
};

/** Applies what is pending of the kernel's and `modules`' migrations (a composition's `modules` fit). */
export const migrateModules = (database: SqlDatabase, modules: ReadonlyArray<ModuleMigrations>): Promise<{ applied: string[] }> =>
  migrate(database, modules);

/** The labels of the kernel's and `modules`' migrations that `database` has not recorded, in the order `migrate` applies them. */
export const pendingMigrations = async (database: SqlDatabase, modules: ReadonlyArray<ModuleMigrations>): Promise<string[]> => {
  const plan = migrationPlan(modules);
  let recorded: ReadonlyArray<{ module: string; version: number }>;
  try {
    recorded = await database.db.selectFrom("domainkit_migrations").select(["module", "version"]).execute();
  } catch (error) {
    // No ledger yet (undefined_table on Postgres, "no such table" on SQLite): nothing is applied.
    const e = error as { code?: unknown; message?: unknown };
    if (e?.code !== "42P01" && !(typeof e?.message === "string" && /no such table/i.test(e.message))) throw error;
    recorded = [];
  }
  const applied = new Set(recorded.map((row) => `${row.module}/${Number(row.version)}`));
  return plan.flatMap(({ module, migrations }) => migrations.filter((m) => !applied.has(`${module}/${m.version}`)).map((m) => migrationLabel(module, m)));
};

/**
 * For a process started with MIGRATE_ON_START=false: fails with a one-line StartupError when the
 * database lacks migrations this version needs, instead of serving requests that could only fail
 * (the release step `domainkit migrate` was skipped, or has not run yet).
 */
export const requireMigrated = async (database: SqlDatabase, modules: ReadonlyArray<ModuleMigrations>): Promise<void> => {
  const pending = await pendingMigrations(database, modules);
  if (pending.length === 0) return;
  throw new StartupError(
    `the database lacks ${pending.length} migration${pending.length === 1 ? "" : "s"} this version needs (first: ${pending[0]}): run \`domainkit migrate\` first, or start with MIGRATE_ON_START=true`,
  );
};
