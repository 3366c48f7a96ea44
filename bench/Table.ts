/** The benchmark's report: one row per scenario and dialect, each rate next to its baselines. */
import type { LoadSummary } from "./LoadGenerator.js";
import type { BenchDialect, RawMeasurement } from "./Scenario.js";

/** One measured scenario on one dialect. */
export interface ResultRow {
  readonly scenario: string;
  readonly dialect: BenchDialect;
  /** Absent when the scenario failed before its HTTP run finished (see `error`). */
  readonly http: LoadSummary | undefined;
  /** The empty Koa route, measured with the same autocannon settings. */
  readonly floor: LoadSummary;
  readonly raw: RawMeasurement | undefined;
  /** Why the scenario failed (setup, load or raw loop); the row still prints. */
  readonly error?: string | undefined;
  /**
   * CPU time of the bench process (the server and its in-process worker; the load generator is
   * another process) per HTTP request, in ms. Unlike req/s it barely depends on how busy the
   * rest of the machine is.
   */
  readonly cpuMsPerRequest?: number | undefined;
  /** The same for the empty Koa route (its own process-less measurement in this process). */
  readonly floorCpuMsPerRequest?: number | undefined;
  /** Extra figures a scenario measured in its setup (e.g. fan-out delivery latency). */
  readonly metrics?: Readonly<Record<string, number>> | undefined;
}

const rate = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1));
const ms = (value: number): string => value.toFixed(value >= 10 ? 0 : 1);
const ratio = (value: number, baseline: number): string => {
  if (!(baseline > 0)) return "-";
  const r = value / baseline;
  return `${r >= 0.1 ? r.toFixed(2) : r.toFixed(3)}x`;
};

/** A scenario's figure: whole above 100, two decimals below 10 (ratios), else one. */
const metric = (value: number): string => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(value < 10 ? 2 : 1));

/** Renders rows as an aligned text table with its legend. */
export const renderTable = (rows: ReadonlyArray<ResultRow>): string => {
  const header = ["scenario", "db", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "koa floor req/s", "vs floor", "raw SQL ops/s", "vs SQL", "cpu ms/req", "cpu vs floor", "cpu vs SQL"];
  const cpu = (row: ResultRow): string[] => {
    const per = row.cpuMsPerRequest;
    if (per === undefined || per <= 0) return ["-", "-", "-"];
    const floorCpu = row.floorCpuMsPerRequest;
    const rawCpu = row.raw?.cpuMsPerOp;
    return [
      per.toFixed(3),
      floorCpu === undefined ? "-" : ratio(floorCpu, per),
      rawCpu === undefined ? "-" : ratio(rawCpu, per),
    ];
  };
  const cells = rows.map((row) => {
    const http = row.http;
    if (http === undefined) {
      return [row.scenario, row.dialect, "FAILED", "-", "-", "-", "-", rate(row.floor.requestsPerSecond), "-", row.raw === undefined ? "-" : rate(row.raw.opsPerSecond), "-", "-", "-", "-"];
    }
    return [
      row.error === undefined ? row.scenario : `${row.scenario} (FAILED)`,
      row.dialect,
      rate(http.requestsPerSecond),
      ms(http.p50Ms),
      ms(http.p99Ms),
      String(http.non2xx),
      String(http.errors),
      rate(row.floor.requestsPerSecond),
      ratio(http.requestsPerSecond, row.floor.requestsPerSecond),
      row.raw === undefined ? "-" : rate(row.raw.opsPerSecond),
      row.raw === undefined ? "-" : ratio(http.requestsPerSecond, row.raw.opsPerSecond),
      ...cpu(row),
    ];
  });
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
      .filter((row) => row.http !== undefined && row.http.non2xx > 0)
      .map((row) => `status codes of ${row.scenario} [${row.dialect}]: ${JSON.stringify(row.http?.statusCodes)}`),
    ...rows
      .filter((row) => row.metrics !== undefined)
      .map((row) => `${row.scenario} [${row.dialect}]: ${Object.entries(row.metrics ?? {}).map(([k, v]) => `${k} ${metric(v)}`).join(", ")}`),
    "cpu ms/req = CPU time of the server process (with its in-process worker) per request; cpu vs floor / vs SQL = the empty Koa route's / the raw loop's CPU per operation divided by it (1.00x: as cheap as the baseline). CPU time hardly depends on other load on the machine, unlike req/s; the raw loop's CPU includes relay work still running from the HTTP run.",
    ...rows.filter((row) => row.error !== undefined).map((row) => `FAILED ${row.scenario} [${row.dialect}]: ${row.error}`),
  ];
  return [format(header), rule, ...cells.map(format), "", ...notes].join("\n");
};
