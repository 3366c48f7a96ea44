/**
 * Starting the reference server for one dialect: SQLite in a fresh temp DATA_DIR, or Postgres
 * in a fresh database created for this run (on DATABASE_URL's server, else one started with
 * the test harness's ensurePostgres). Everything it creates is removed by `close`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createLogger } from "../adapters/koa/Logging.js";
import { loadConfig } from "../hosts/Config.js";
import { sqliteFileOf } from "../hosts/Database.js";
import { createServer } from "../hosts/ReferenceServer.js";
import { defaultActionBudgets, type ActionBudgetLimit, type ActionBudgetName } from "../adapters/koa/ActionBudgets.js";
import { ensurePostgres, redact } from "../test/support/postgres.js";
import { Cleanup } from "./Cleanup.js";
import { openRawPostgres, openRawSqlite, type RawDatabase } from "./RawDatabase.js";
import type { BenchDialect, BenchTarget } from "./Scenario.js";
import { benchProviderWebhookSecret } from "./scenarios/paymentsWebhooks.js";

/** A running server plus a raw driver handle on its database. */
export interface RunningTarget extends BenchTarget {
  readonly raw: RawDatabase;
  /** Stops the server, closes the raw handle, drops the database, removes the temp dir. */
  readonly close: () => Promise<void>;
}

/**
 * The server's per-caller rate limit would answer 429 once a user spent its budget, and the
 * benchmark would then measure refusals: it keeps the limiter in the chain with a budget it
 * never reaches.
 */
const benchLimits = { rateLimitPoints: 1_000_000_000, rateLimitIpPoints: 1_000_000_000 };
/** Every action budget raised out of reach too (the limiter still runs), so e.g. anonymous discovery is measured, not refused. */
const benchActionBudgets = Object.fromEntries(
  Object.entries(defaultActionBudgets).map(([name, limit]) => [name, { ...limit, points: 1_000_000_000 }]),
) as Record<ActionBudgetName, ActionBudgetLimit>;

const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

/** Creates a fresh Postgres database for the run and registers its drop. */
const freshPostgresDatabase = async (cleanup: Cleanup): Promise<string> => {
  const serverUrl = await ensurePostgres();
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  admin.on("error", () => undefined);
  cleanup.add("close admin pool", () => admin.end());
  const name = `domainkit_bench_${randomBytes(6).toString("hex")}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    throw new Error(`cannot create the benchmark database on ${redact(serverUrl)} (the role needs CREATEDB): ${String(error)}`);
  }
  cleanup.add(`drop database ${name}`, async () => {
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  });
  return withDatabase(serverUrl, name);
};

/**
 * Starts the reference server on `dialect` with the worker in-process and warn-level logs.
 * Its clean-up joins `parent` at once, so an interruption during start-up removes it too.
 */
export const startTarget = async (dialect: BenchDialect, parent: Cleanup): Promise<RunningTarget> => {
  const cleanup = new Cleanup();
  parent.add(`close ${dialect} target`, () => cleanup.run());
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "domainkit-bench-"));
    cleanup.add("remove DATA_DIR", () => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = dialect === "postgres" ? await freshPostgresDatabase(cleanup) : undefined;
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "warn",
      WORKER_IN_PROCESS: "true",
      // Scenarios that stand for many clients send each one's address in X-Forwarded-For.
      TRUST_PROXY: "1",
      PROVIDER_WEBHOOK_SECRET: benchProviderWebhookSecret,
      ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
    });
    const server = await createServer(config, { logger: createLogger({ level: config.logLevel }), limits: benchLimits, actionBudgets: benchActionBudgets });
    cleanup.add("close server", server.close);
    const raw = databaseUrl !== undefined ? openRawPostgres(databaseUrl) : openRawSqlite(sqliteFileOf(config));
    cleanup.add("close raw database", raw.close);
    return { dialect, url: server.url, jwtSecret: config.jwtSecret, server, raw, close: () => cleanup.run() };
  } catch (error) {
    await cleanup.run();
    throw error;
  }
};
