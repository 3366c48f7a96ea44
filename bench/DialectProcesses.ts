/**
 * Each database measured in a process of its own: `--db both` runs this script once per dialect
 * (`--rows-out`) and gathers the rows. Measured in one process, the second database's rows ran
 * in a process that had just served the first one's scenarios (its heap, its closed server's
 * leftovers): /healthz on Postgres read 0.72–0.77× of the floor after SQLite and 0.79–0.81× alone
 * (bench/README.md, twenty-third session).
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadSummary } from "./LoadGenerator.js";
import type { BenchDialect } from "./Scenario.js";
import type { ResultRow } from "./Table.js";

/** What a dialect's process is asked to measure. */
export interface DialectRunOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly scenarios: ReadonlyArray<string>;
  readonly profileDir: string | undefined;
}

/** The command line of one dialect's run, writing its rows to `rowsOut` (and no results file). */
export const dialectArguments = (dialect: BenchDialect, options: DialectRunOptions, rowsOut: string): string[] => [
  "--db",
  dialect,
  "--duration",
  String(options.durationSeconds),
  "--warmup",
  String(options.warmupSeconds),
  "--connections",
  String(options.connections),
  "--scenario",
  options.scenarios.join(","),
  "--no-json",
  "--rows-out",
  rowsOut,
  ...(options.profileDir !== undefined ? ["--profile", options.profileDir] : []),
];

const noLoad: LoadSummary = { requestsPerSecond: 0, total: 0, p50Ms: 0, p99Ms: 0, non2xx: 0, errors: 0, statusCodes: {}, planPasses: 0 };

/** The rows of a dialect whose process ended without writing any: one failed row per scenario. */
const failedRows = (dialect: BenchDialect, scenarios: ReadonlyArray<string>, error: string): ResultRow[] =>
  scenarios.map((scenario) => ({ scenario, dialect, http: undefined, floor: noLoad, raw: undefined, error }));

/**
 * Runs `script` (this benchmark) once per dialect, one after the other, each in a new Node process
 * with this process's flags, and answers their rows in order. `onChild` is told the running child
 * (undefined when none), so an interruption can stop it.
 */
export const benchEachDialectInItsOwnProcess = async (
  script: string,
  dialects: ReadonlyArray<BenchDialect>,
  options: DialectRunOptions,
  onChild: (child: ChildProcess | undefined) => void,
): Promise<ResultRow[]> => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-bench-rows-"));
  try {
    const rows: ResultRow[] = [];
    for (const dialect of dialects) {
      const rowsOut = join(dir, `${dialect}.json`);
      const child = fork(script, dialectArguments(dialect, options, rowsOut), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      onChild(child);
      const status = await new Promise<string>((resolve) => {
        child.once("error", (error) => resolve(error.message));
        child.once("exit", (code, signal) => resolve(signal !== null ? `signal ${signal}` : `status ${code}`));
      });
      onChild(undefined);
      try {
        rows.push(...(JSON.parse(readFileSync(rowsOut, "utf8")) as ResultRow[]));
      } catch {
        rows.push(...failedRows(dialect, options.scenarios, `the ${dialect} run ended (${status}) without its rows`));
      }
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
