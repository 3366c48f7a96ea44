/**
 * The `domainkit` command line: serve, worker, migrate, token, merchant, revoke, dead-letters,
 * replay, settlement.
 * Configuration comes from the environment (Config.ts); output is JSON where a script may read it.
 */
import { parseArgs } from "node:util";
import { Effect } from "effect";
import { mintToken } from "../adapters/koa/Authentication.js";
import { createLogger } from "../adapters/koa/Logging.js";
import { listDeadJobs, replayJob } from "../adapters/worker/JobRunner.js";
import { listDeadMessages, replayMessage } from "../adapters/worker/OutboxRelay.js";
import { featuresFor } from "../adapters/sql/featuresFor.js";
import { runQuery } from "../adapters/sql/runQuery.js";
import type { SqlDatabase } from "../adapters/sql/SqlDatabase.js";
import { revokeSessions } from "../core/identity/RevokeSessions.js";
import { reconcileSettlementDay } from "../core/payments/SettlementReconciliation.js";
import { UserEpochs } from "../ports/UserEpochs.js";
import { ConfigError, loadConfig, type Config } from "./Config.js";
import { migrateModules, openConfiguredDatabase, StartupError } from "./Database.js";
import { redactUrl } from "../adapters/observability/Redact.js";
import { referenceModules } from "./modules/index.js";
import { withBlobStorage } from "./modules/blobStorageModule.js";
import { createMerchantWithKey } from "./modules/paymentsModule.js";
import { runSandboxFromEnv, SandboxUsageError } from "../adapters/providers/sandbox/sandboxMain.js";
import { createServer } from "./ReferenceServer.js";
import { createHostCore, startHostWorker, type HostCore } from "./Runtime.js";

const usage = `Usage: domainkit <command> [options]

Commands:
  serve                          start the reference server (HTTP, realtime, in-process worker)
  worker                         run the outbox relay and job runner alone
  migrate                        apply pending migrations and exit
  token --user <uuid> [--ttl s]  print a development JWT for that user (default ttl 3600)
  merchant create --name <name> --scopes <scope,...>
                                 create a payments merchant and print {merchant_id, api_key}
                                 (the key is shown once; scopes: payments:write,refunds:write,ledger:read)
  sandbox [--port 4010] [--host 127.0.0.1] [--webhook-url <url>]
                                 run the sandbox payment provider's HTTP API; pushes signed webhooks
                                 to <url> (SANDBOX_API_KEY, PROVIDER_WEBHOOK_SECRET from the environment)
  revoke --user <uuid>           revoke every token of that user
  dead-letters [--limit n]       list dead-lettered jobs and outbox messages (JSON)
  replay --job <id> | --message <id>
                                 put a dead-lettered job or message back in the queue
  settlement reconcile --day YYYY-MM-DD
                                 reconcile the provider's settlement file of that UTC day
                                 (idempotent) and print {day, rows, mismatches, mismatches_opened}
  settlement exceptions [--status open|resolved] [--limit n]
                                 list reconciliation exceptions of every merchant, newest first (JSON)

Configuration (environment): PORT, HOST, DATA_DIR, DATABASE_URL, AUTH_JWT_SECRET,
WORKER_IN_PROCESS, MIGRATE_ON_START, LOG_LEVEL, PAYMENT_PROVIDER_URL, PAYMENT_PROVIDER_API_KEY,
PAYMENT_PROVIDER_TIMEOUT_MS (see README).`;

const calendarDay = (value: string | undefined): string => {
  const day = value ?? "";
  const parsed = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) {
    throw new UsageError("--day YYYY-MM-DD (a calendar date) is required");
  }
  return day;
};

/**
 * Reconciliation exceptions of every merchant (and the unmatched ones of none), newest first:
 * the operator's view, which the merchant-scoped ReconciliationRepository.listExceptions lacks.
 */
const listAllReconciliationExceptions = (database: SqlDatabase, status: "open" | "resolved" | undefined, limit: number) => {
  const f = featuresFor(database);
  const json = (v: unknown) => (v === null || v === undefined ? null : f.jsonFromDb(v));
  const time = (v: unknown) => (v === null || v === undefined ? null : f.timeFromDb(v).toISOString());
  return runQuery(database, (ex) => {
    let query = ex.selectFrom("payment_reconciliation_exceptions").selectAll();
    if (status !== undefined) query = query.where("status", "=", status);
    return query.orderBy("id", "desc").limit(limit).execute();
  }).pipe(
    Effect.map((rows) =>
      rows.map((r) => ({
        id: r.id,
        merchant_id: r.merchant_id ?? null,
        provider_object: r.provider_object,
        settlement_window: r.settlement_window,
        kind: r.kind,
        subject_type: r.subject_type,
        subject_id: r.subject_id ?? null,
        expected: json(r.expected),
        observed: json(r.observed),
        currency: r.currency ?? null,
        status: r.status,
        resolution: json(r.resolution),
        opened_at: time(r.opened_at),
        resolved_at: time(r.resolved_at),
      })),
    ),
  );
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Stops `stop` on SIGINT/SIGTERM, then exits. */
const onSignals = (stop: () => Promise<void>): void => {
  let stopping = false;
  const handler = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: shutting down\n`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
};

/** Opens, migrates and composes the configured database for a one-off command. */
const withCore = async <A>(config: Config, use: (core: HostCore) => Promise<A>): Promise<A> => {
  const logger = createLogger({ level: "warn" });
  const { modules } = withBlobStorage(config, referenceModules(config));
  const database = await openConfiguredDatabase(config);
  try {
    await migrateModules(database, modules);
  } catch (error) {
    await database.close();
    throw error;
  }
  const core = await createHostCore({ database, modules, logger });
  try {
    return await use(core);
  } finally {
    await core.close();
  }
};

const requireUser = (value: string | undefined): string => {
  if (value === undefined || !uuid.test(value)) throw new UsageError("--user <uuid> is required");
  return value.toLowerCase();
};

class UsageError extends Error {}

/** Runs one CLI invocation. */
export const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  const [command, ...rest] = argv;
  try {
    if (command === "sandbox" && !rest.includes("--help") && !rest.includes("-h")) {
      // The sandbox parses its own flags and needs none of the server's configuration.
      const sandbox = await runSandboxFromEnv(rest).catch((error: unknown) => {
        throw error instanceof SandboxUsageError ? new UsageError(error.message) : error;
      });
      onSignals(sandbox.close);
      return;
    }
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: command === "merchant" || command === "settlement",
      options: {
        user: { type: "string" },
        ttl: { type: "string" },
        limit: { type: "string" },
        job: { type: "string" },
        message: { type: "string" },
        name: { type: "string" },
        scopes: { type: "string" },
        day: { type: "string" },
        status: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help || command === undefined || command === "help" || command === "--help") {
      process.stdout.write(`${usage}\n`);
      return;
    }
    const config = loadConfig();
    switch (command) {
      case "serve": {
        const logger = createLogger({ level: config.logLevel, format: config.logFormat, production: config.production });
        const server = await createServer(config, { logger });
        onSignals(server.close);
        return;
      }
      case "worker": {
        const logger = createLogger({ level: config.logLevel });
        const database = await openConfiguredDatabase(config);
        // The worker scans attachments and writes exports: it needs the same blob storage as the server.
        const { modules } = withBlobStorage(config, referenceModules(config));
        if (config.migrateOnStart) await migrateModules(database, modules);
        const core = await createHostCore({ database, modules, logger });
        const worker = await startHostWorker(core);
        logger.info({ workerId: worker.workerId, database: database.dialect }, "domainkit worker running");
        onSignals(async () => {
          await worker.stop();
          await core.close();
        });
        return;
      }
      case "migrate": {
        const database = await openConfiguredDatabase(config);
        try {
          const { applied } = await migrateModules(database, referenceModules(config));
          process.stdout.write(`${JSON.stringify({ applied })}\n`);
        } finally {
          await database.close();
        }
        return;
      }
      case "token": {
        const userId = requireUser(values.user);
        const ttlSeconds = values.ttl === undefined ? 3600 : Number(values.ttl);
        if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new UsageError("--ttl must be a positive number of seconds");
        if (config.usingDevelopmentSecret) process.stderr.write("warning: signing with the development AUTH_JWT_SECRET\n");
        // The token carries the user's current epoch, so it survives earlier revocations.
        const epoch = await withCore(config, (core) =>
          core.runtime.runPromise(Effect.flatMap(UserEpochs, (epochs) => epochs.current(userId))),
        );
        process.stdout.write(`${await mintToken({ secret: config.jwtSecret, userId, ttlSeconds, epoch })}\n`);
        return;
      }
      case "merchant": {
        if (positionals[0] !== "create") throw new UsageError('usage: merchant create --name <name> --scopes <scope,...>');
        if (values.name === undefined || values.name.trim() === "") throw new UsageError("--name is required");
        const scopes = (values.scopes ?? "payments:write,refunds:write,ledger:read").split(",").map((s) => s.trim()).filter((s) => s !== "");
        const created = await withCore(config, (core) => createMerchantWithKey(core.runtime, { name: values.name as string, scopes }));
        process.stdout.write(`${JSON.stringify({ merchant_id: created.merchant_id, api_key: created.api_key })}\n`);
        return;
      }
      case "revoke": {
        const userId = requireUser(values.user);
        const epoch = await withCore(config, (core) => core.runtime.runPromise(revokeSessions(userId)));
        process.stdout.write(`${JSON.stringify({ user_id: userId, epoch })}\n`);
        return;
      }
      case "dead-letters": {
        const limit = values.limit === undefined ? 100 : Number(values.limit);
        if (!Number.isInteger(limit) || limit <= 0) throw new UsageError("--limit must be a positive integer");
        const result = await withCore(config, (core) =>
          core.runtime.runPromise(
            Effect.all({ jobs: listDeadJobs(limit), messages: listDeadMessages(limit) }),
          ),
        );
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      case "replay": {
        if ((values.job === undefined) === (values.message === undefined)) throw new UsageError("give exactly one of --job <id> or --message <id>");
        const replayed = await withCore(config, (core) =>
          core.runtime.runPromise(values.job !== undefined ? replayJob(values.job) : replayMessage(values.message as string)),
        );
        process.stdout.write(`${JSON.stringify({ replayed })}\n`);
        if (!replayed) process.exitCode = 1;
        return;
      }
      case "settlement": {
        if (positionals[0] === "reconcile") {
          const day = calendarDay(values.day);
          const summary = await withCore(config, (core) => core.runtime.runPromise(reconcileSettlementDay(day)));
          process.stdout.write(
            `${JSON.stringify({ day: summary.day, rows: summary.rows, mismatches: summary.mismatches, mismatches_opened: summary.opened })}\n`,
          );
          return;
        }
        if (positionals[0] === "exceptions") {
          const status = values.status;
          if (status !== undefined && status !== "open" && status !== "resolved") throw new UsageError("--status must be open or resolved");
          const limit = values.limit === undefined ? 100 : Number(values.limit);
          if (!Number.isInteger(limit) || limit <= 0) throw new UsageError("--limit must be a positive integer");
          const exceptions = await withCore(config, (core) =>
            core.runtime.runPromise(listAllReconciliationExceptions(core.database, status, limit)),
          );
          process.stdout.write(`${JSON.stringify({ data: exceptions }, null, 2)}\n`);
          return;
        }
        throw new UsageError("usage: settlement reconcile --day YYYY-MM-DD | settlement exceptions [--status open|resolved]");
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
      process.exitCode = 2;
      return;
    }
    // Start-up errors an operator fixes outside the program: one line each, no stack trace.
    if (error instanceof ConfigError) {
      for (const line of error.lines) process.stderr.write(`domainkit: configuration error: ${line}\n`);
      process.exitCode = 2;
      return;
    }
    const startup = startupProblem(error);
    if (startup !== undefined) {
      process.stderr.write(`domainkit: cannot start: ${startup}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
};

/** The one-line text of a connectivity or listen failure at start-up; undefined for anything else (a bug keeps its stack). */
const startupProblem = (error: unknown): string | undefined => {
  if (error instanceof StartupError) return redactUrl(error.message);
  const e = error as { syscall?: unknown; code?: unknown; address?: unknown; port?: unknown };
  if (e?.syscall === "listen" && typeof e.code === "string") {
    const why: Record<string, string> = {
      EADDRINUSE: "the address is already in use",
      EACCES: "permission denied (ports below 1024 need privileges)",
      EADDRNOTAVAIL: "the address is not available on this machine",
    };
    return `cannot listen on ${String(e.address ?? "?")}:${String(e.port ?? "?")}: ${why[e.code] ?? e.code} (check HOST and PORT)`;
  }
  return undefined;
};
