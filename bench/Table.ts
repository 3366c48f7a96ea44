/** The benchmark's report: one row per scenario and dialect, each rate next to its baselines. */
import type { LoadSummary } from "./LoadGenerator.js";
import type { BenchDialect, RawMeasurement } from "./Scenario.js";

/** One measured scenario on one dialect. */
export interface ResultRow {
  readonly scenario: string;
  readonly dialect: BenchDialect;
  readonly http: LoadSummary;
  /** The empty Koa route, measured with the same autocannon settings. */
  readonly floor: LoadSummary;
  readonly raw: RawMeasurement | undefined;
}

const rate = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1));
const ms = (value: number): string => value.toFixed(value >= 10 ? 0 : 1);
const ratio = (value: number, baseline: number): string => (baseline > 0 ? `${(value / baseline).toFixed(2)}x` : "-");

/** Renders rows as an aligned text table with its legend. */
export const renderTable = (rows: ReadonlyArray<ResultRow>): string => {
  const header = ["scenario", "db", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "koa floor req/s", "vs floor", "raw SQL ops/s", "vs SQL"];
  const cells = rows.map((row) => [
    row.scenario,
    row.dialect,
    rate(row.http.requestsPerSecond),
    ms(row.http.p50Ms),
    ms(row.http.p99Ms),
    String(row.http.non2xx),
    String(row.http.errors),
    rate(row.floor.requestsPerSecond),
    ratio(row.http.requestsPerSecond, row.floor.requestsPerSecond),
    row.raw === undefined ? "-" : rate(row.raw.opsPerSecond),
    row.raw === undefined ? "-" : ratio(row.http.requestsPerSecond, row.raw.opsPerSecond),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((line) => (line[i] ?? "").length)));
  // Names read left-aligned, numbers right-aligned.
  const format = (line: ReadonlyArray<string>): string =>
    line.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const legends = new Map<string, string>();
  for (const row of rows) if (row.raw !== undefined) legends.set(`${row.scenario} [${row.dialect}]`, row.raw.label);
  const notes = [
    "vs floor = req/s / the empty Koa route's req/s (same connections and duration): the share of a bare Koa app's throughput left after the host's middleware and the work.",
    ...(legends.size > 0
      ? ["vs SQL   = req/s / the raw driver's ops/s of the scenario's write, run without HTTP or Effect: the cost of everything around the SQL."]
      : []),
    ...[...legends].map(([which, label]) => `raw SQL of ${which}: ${label}`),
    ...rows
      .filter((row) => row.http.non2xx > 0)
      .map((row) => `status codes of ${row.scenario} [${row.dialect}]: ${JSON.stringify(row.http.statusCodes)}`),
  ];
  return [format(header), rule, ...cells.map(format), "", ...notes].join("\n");
};
