/**
 * The `domainkit` command line: serve, worker, migrate, token, revoke, dead-letters, replay, plus
 * every module's commands (ModuleDefinition.commands: merchant, settlement and payments-minimize-inbox
 * from payments).
 * Configuration comes from the environment (Config.ts); output is JSON where a script may read it.
 */
import { parseArgs } from "node:util";
import { Effect, Either } from "effect";
import { mintToken } from "../adapters/koa/Authentication.js";
import { createLogger } from "../adapters/koa/Logging.js";
import { listDeadJobs, replayJob } from "../adapters/worker/JobRunner.js";
import { listDeadMessages, replayMessage } from "../adapters/worker/OutboxRelay.js";
import { revokeSessions } from "../core/identity/RevokeSessions.js";
import { UserEpochs } from "../ports/UserEpochs.js";
import { acceptsSecretTokens, ConfigError, loadConfig, refuseDevelopmentKeysInProduction, type Config } from "./Config.js";
import { migrateModules, openConfiguredDatabase, requireMigrated, StartupError } from "./Database.js";
import { redactUrl } from "../adapters/observability/Redact.js";
import type { ModuleCommand } from "./ModuleDefinition.js";
import type { HostServices } from "./PortBindings.js";
import { referenceModules, type ReferencePorts } from "./modules/index.js";
import { configuredBlobStore, requireExistingBucket } from "./modules/blobStorageModule.js";
import { runSandboxFromEnv, SandboxUsageError } from "../adapters/payments/providers/sandbox/sandboxMain.js";
import { createServer, warnOfSandboxServices } from "./ReferenceServer.js";
import { enableSpanStackTraces } from "../core/kernel/Span.js";
import { createHostCore, startHostWorker, type HostCore } from "./Runtime.js";

const kernelUsage = `Usage: domainkit <command> [options]

Commands:
  serve                          start the reference server (HTTP, realtime; the worker too unless WORKER_IN_PROCESS=false)
  worker                         run the outbox relay and job runner alone
  migrate                        apply pending migrations and exit
  token --user <uuid> [--ttl s]  print a development JWT for that user (default ttl 3600; auth_time = now)
  sandbox [--port 4010] [--host 127.0.0.1] [--webhook-url <url>]
                                 run the sandbox payment provider's HTTP API; pushes signed webhooks
                                 to <url> (SANDBOX_API_KEY, PROVIDER_WEBHOOK_SECRET from the environment)
  revoke --user <uuid>           revoke every token of that user
  dead-letters [--limit n]       list dead-lettered jobs and outbox messages (JSON)
  replay --job <id> | --message <id>
                                 put a dead-lettered job or message back in the queue
`;

const configurationUsage = `Configuration (environment; every variable in the README, "Configuration" and "Operations"):
  PORT, HOST, TRUST_PROXY, DATA_DIR, DATABASE_URL, DATABASE_POOL_MAX, WORKER_IN_PROCESS, MIGRATE_ON_START, SHUTDOWN_DELAY_MS,
  LOG_LEVEL, LOG_FORMAT, OBJECT_STORE_URL, OBJECT_STORE_BUCKET (with OBJECT_STORE_REGION, OBJECT_STORE_ACCESS_KEY_ID,
  OBJECT_STORE_SECRET_ACCESS_KEY), PAYMENT_PROVIDER_URL, PAYMENT_PROVIDER_API_KEY, PROVIDER_WEBHOOK_SECRET.
With NODE_ENV=production the server and the worker refuse to start without values of your own for
  AUTH_JWT_SECRET, BLOB_SIGNING_SECRET, COMMERCE_SEALING_KEYS, DELIVERY_LOCATION_KEY and METRICS_TOKEN
  (or METRICS_ENABLED=false); give the worker the same environment as the server.`;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the shutdown is told: the process's logger (serve, worker), or plain lines on stderr (sandbox). */
interface ShutdownLog {
  readonly info: (fields: Record<string, unknown>, message: string) => void;
  readonly error: (fields: Record<string, unknown>, message: string) => void;
}

const stderrShutdownLog: ShutdownLog = {
  info: (fields, message) => void process.stderr.write(`${String(fields.signal)}: ${message}\n`),
  error: (fields, message) => void process.stderr.write(`${message}: ${String(fields.err)}\n`),
};

/** Stops `stop` on SIGINT/SIGTERM, then exits (0, or 1 when stopping failed); says so through `log`, so JSON logs stay JSON. */
const onSignals = (stop: () => Promise<void>, log: ShutdownLog = stderrShutdownLog): void => {
  let stopping = false;
  const handler = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
};

/** The commands the reference modules contribute, by name. */
const moduleCommands = (config: Config): ReadonlyMap<string, ModuleCommand<HostServices<ReferencePorts>>> =>
  new Map(referenceModules(config).modules.flatMap((m) => m.commands ?? []).map((c) => [c.name, c]));

/** The help text: the host's commands, then every module's. */
const usageOf = (commands: Iterable<ModuleCommand<HostServices<ReferencePorts>>>): string =>
  `${kernelUsage}${[...commands].map((c) => `${c.usage}\n`).join("")}\n${configurationUsage}`;

/** Opens, migrates and composes the configured database for a one-off command (its log lines go to stderr). */
const withCore = async <A>(config: Config, io: CliIo, use: (core: HostCore<ReferencePorts>) => Promise<A>): Promise<A> => {
  const logger = createLogger({ level: "warn", destination: { write: (line: string) => io.stderr(line) } });
  const modules = referenceModules(config);
  // On SQLite its realtime notices (a revocation's) go through the file to the running server.
  const database = await openConfiguredDatabase(config, undefined, { shareRealtimeNotices: true });
  try {
    await migrateModules(database, modules.modules);
  } catch (error) {
    await database.close();
    throw error;
  }
  const core = await createHostCore({ database, modules, logger, files: { store: await configuredBlobStore(config) } });
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

/** Where an invocation reads its configuration and writes its output and exit status. */
export interface CliIo {
  /** The environment the configuration is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Sets the process's exit status (without exiting: open handles close first). */
  readonly exit: (code: number) => void;
}

/** The process's own environment, streams and exit status (bin/domainkit.js). */
const processIo: CliIo = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  exit: (code) => {
    process.exitCode = code;
  },
};

/**
 * Runs one CLI invocation. `io` defaults to the process's; the tests run the one-off commands with
 * their own (no process to start), and `serve`, `worker` and `sandbox` as processes.
 */
export const main = async (argv: ReadonlyArray<string>, io: CliIo = processIo): Promise<void> => {
  const [command, ...rest] = argv;
  let usage = usageOf([]);
  try {
    if (command === "sandbox" && !rest.includes("--help") && !rest.includes("-h")) {
      // The sandbox parses its own flags and needs none of the server's configuration.
      const sandbox = await runSandboxFromEnv(rest).catch((error: unknown) => {
        throw error instanceof SandboxUsageError ? new UsageError(error.message) : error;
      });
      onSignals(sandbox.close);
      return;
    }
    // The modules' commands do not depend on the configuration: the help never needs a valid one.
    const commands = moduleCommands(loadConfig({}));
    usage = usageOf(commands.values());
    const moduleCommand = command === undefined ? undefined : commands.get(command);
    if (moduleCommand !== undefined) {
      const { values, positionals } = parseArgs({
        args: [...rest],
        allowPositionals: true,
        options: { ...moduleCommand.options, help: { type: "boolean", short: "h" } },
        strict: true,
      });
      if (values.help === true) {
        io.stdout(`${usage}\n`);
        return;
      }
      // Arguments are checked before anything opens the database.
      const prepared = moduleCommand.prepare({ positionals, values });
      if (Either.isLeft(prepared)) throw new UsageError(prepared.left.message);
      const output = await withCore(loadConfig(io.env), io, (core) => core.runtime.runPromise(prepared.right));
      io.stdout(output.stdout);
      if (output.exitCode !== undefined && output.exitCode !== 0) io.exit(output.exitCode);
      return;
    }
    const { values } = parseArgs({
      args: [...rest],
      options: {
        user: { type: "string" },
        ttl: { type: "string" },
        limit: { type: "string" },
        job: { type: "string" },
        message: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help || command === undefined || command === "help" || command === "--help") {
      io.stdout(`${usage}\n`);
      return;
    }
    const config = loadConfig(io.env);
    switch (command) {
      case "serve": {
        const logger = createLogger({ level: config.logLevel, format: config.logFormat, production: config.production });
        const server = await createServer(config, { logger });
        onSignals(server.close, logger);
        return;
      }
      case "worker": {
        // The worker opens and seals what the server does (orders, courier positions): the same refusal as the server's.
        const modules = referenceModules(config);
        refuseDevelopmentKeysInProduction(config, modules.modules.map((m) => m.name));
        // The worker scans attachments and writes exports: it needs the same blob storage as the server.
        const store = await configuredBlobStore(config);
        await requireExistingBucket(store, config);
        const logger = createLogger({ level: config.logLevel, format: config.logFormat, production: config.production });
        warnOfSandboxServices(config, logger);
        // On SQLite the server commits in another process: watch the file so its writes wake this
        // worker at once, and write this worker's realtime notices to the file for the server's sockets.
        const database = await openConfiguredDatabase(config, undefined, { watchOtherProcesses: true, shareRealtimeNotices: true });
        // Jobs, consumers and relay passes are traced like requests when OTEL_EXPORTER_OTLP_ENDPOINT is set.
        const tracing =
          config.otlpEndpoint !== undefined
            ? (await import("../adapters/observability/Tracing.js")).createTracing({ serviceName: config.serviceName, endpoint: config.otlpEndpoint })
            : undefined;
        if (tracing !== undefined) enableSpanStackTraces();
        try {
          if (config.migrateOnStart) await migrateModules(database, modules.modules);
          else await requireMigrated(database, modules.modules);
        } catch (error) {
          await database.close();
          throw error;
        }
        const core = await createHostCore({
          database,
          modules,
          logger,
          files: { store },
          ...(tracing !== undefined ? { tracer: tracing.tracer } : {}),
        });
        const worker = await startHostWorker(core);
        logger.info({ workerId: worker.workerId, database: database.dialect }, "domainkit worker running");
        onSignals(async () => {
          await worker.stop();
          await core.close();
          await tracing?.shutdown();
        }, logger);
        return;
      }
      case "migrate": {
        const database = await openConfiguredDatabase(config);
        try {
          const { applied } = await migrateModules(database, referenceModules(config).modules);
          io.stdout(`${JSON.stringify({ applied })}\n`);
        } finally {
          await database.close();
        }
        return;
      }
      case "token": {
        const userId = requireUser(values.user);
        const ttlSeconds = values.ttl === undefined ? 3600 : Number(values.ttl);
        if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new UsageError("--ttl must be a positive number of seconds");
        if (!acceptsSecretTokens(config)) {
          throw new UsageError("the server accepts only your identity provider's tokens (AUTH_JWT_PUBLIC_KEY or AUTH_JWT_JWKS_URL without AUTH_JWT_SECRET): sign in there");
        }
        if (config.usingDevelopmentSecret) io.stderr("warning: signing with the development AUTH_JWT_SECRET\n");
        // The token carries the user's current epoch, so it survives earlier revocations.
        const epoch = await withCore(config, io, (core) =>
          core.runtime.runPromise(Effect.flatMap(UserEpochs, (epochs) => epochs.current(userId))),
        );
        // A development sign-in: auth_time is now, so step-up checks (delivery reassignment) pass until it ages.
        io.stdout(`${await mintToken({ secret: config.jwtSecret, userId, ttlSeconds, epoch, authTime: Math.floor(Date.now() / 1000) })}\n`);
        return;
      }
      case "revoke": {
        const userId = requireUser(values.user);
        const epoch = await withCore(config, io, (core) => core.runtime.runPromise(revokeSessions(userId)));
        io.stdout(`${JSON.stringify({ user_id: userId, epoch })}\n`);
        return;
      }
      case "dead-letters": {
        const limit = values.limit === undefined ? 100 : Number(values.limit);
        if (!Number.isInteger(limit) || limit <= 0) throw new UsageError("--limit must be a positive integer");
        const result = await withCore(config, io, (core) =>
          core.runtime.runPromise(
            Effect.all({ jobs: listDeadJobs(limit), messages: listDeadMessages(limit) }),
          ),
        );
        io.stdout(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      case "replay": {
        if ((values.job === undefined) === (values.message === undefined)) throw new UsageError("give exactly one of --job <id> or --message <id>");
        const replayed = await withCore(config, io, (core) =>
          core.runtime.runPromise(values.job !== undefined ? replayJob(values.job) : replayMessage(values.message as string)),
        );
        io.stdout(`${JSON.stringify({ replayed })}\n`);
        if (!replayed) io.exit(1);
        return;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`${(error as Error).message}\n\n${usage}\n`);
      io.exit(2);
      return;
    }
    // Start-up errors an operator fixes outside the program: one line each, no stack trace.
    if (error instanceof ConfigError) {
      for (const line of error.lines) io.stderr(`domainkit: configuration error: ${line}\n`);
      io.exit(2);
      return;
    }
    const startup = startupProblem(error);
    if (startup !== undefined) {
      io.stderr(`domainkit: cannot start: ${startup}\n`);
      io.exit(1);
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
