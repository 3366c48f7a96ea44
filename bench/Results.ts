/**
 * Benchmark results as JSON (`bench/results/<date>-<db>.json`) and the comparison of a run with
 * an earlier one (`--compare <file>`): per scenario and database, the ratios (vs floor, vs SQL)
 * of both runs and how much they changed. Ratios, not rates, are compared: a ratio is measured
 * against baselines of the same run, so it survives a machine that is busier on one day.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, hostname } from "node:os";
import { dirname } from "node:path";
import type { ResultRow } from "./Table.js";

/** One row as stored. */
export interface StoredRow {
  readonly scenario: string;
  readonly db: string;
  readonly reqPerSecond: number | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly non2xx: number | null;
  readonly errors: number | null;
  readonly floorReqPerSecond: number;
  readonly vsFloor: number | null;
  readonly rawOpsPerSecond: number | null;
  readonly vsSql: number | null;
  readonly error: string | null;
  /** CPU ms of the server process per request, and the baselines' CPU per operation. */
  readonly cpuMsPerRequest: number | null;
  readonly floorCpuMsPerRequest: number | null;
  readonly rawCpuMsPerOp: number | null;
  /** Baseline CPU per operation / CPU per request (1.0: as cheap as the baseline). */
  readonly cpuVsFloor: number | null;
  readonly cpuVsSql: number | null;
  readonly metrics: Readonly<Record<string, number>>;
}

/** A stored run. */
export interface StoredRun {
  readonly date: string;
  readonly machine: { readonly hostname: string; readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly nodeFlags?: ReadonlyArray<string> };
  readonly options: Readonly<Record<string, unknown>>;
  readonly rows: ReadonlyArray<StoredRow>;
}

const div = (a: number | undefined, b: number | undefined): number | null =>
  a === undefined || b === undefined || b <= 0 ? null : a / b;

/** The rows of a run in their stored form. */
export const toStoredRun = (rows: ReadonlyArray<ResultRow>, options: Readonly<Record<string, unknown>>, now = new Date()): StoredRun => ({
  date: now.toISOString(),
  machine: { hostname: hostname(), cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "unknown", node: process.version, nodeFlags: process.execArgv },
  options,
  rows: rows.map((row) => ({
    scenario: row.scenario,
    db: row.dialect,
    reqPerSecond: row.http?.requestsPerSecond ?? null,
    p50Ms: row.http?.p50Ms ?? null,
    p99Ms: row.http?.p99Ms ?? null,
    non2xx: row.http?.non2xx ?? null,
    errors: row.http?.errors ?? null,
    floorReqPerSecond: row.floor.requestsPerSecond,
    vsFloor: div(row.http?.requestsPerSecond, row.floor.requestsPerSecond),
    rawOpsPerSecond: row.raw?.opsPerSecond ?? null,
    vsSql: div(row.http?.requestsPerSecond, row.raw?.opsPerSecond),
    error: row.error ?? null,
    cpuMsPerRequest: row.cpuMsPerRequest ?? null,
    floorCpuMsPerRequest: row.floorCpuMsPerRequest ?? null,
    rawCpuMsPerOp: row.raw?.cpuMsPerOp ?? null,
    cpuVsFloor: div(row.floorCpuMsPerRequest, row.cpuMsPerRequest),
    cpuVsSql: div(row.raw?.cpuMsPerOp, row.cpuMsPerRequest),
    metrics: row.metrics ?? {},
  })),
});

/** Where a run's JSON goes: bench/results/<YYYY-MM-DDTHH-MM-SS>-<db>.json under `root`. */
export const resultsPath = (root: URL, db: string, now = new Date()): URL =>
  new URL(`bench/results/${now.toISOString().slice(0, 19).replace(/:/g, "-")}-${db}.json`, root);

/** Writes `run` to `path` (creating the directory). */
export const writeRun = (path: URL, run: StoredRun): void => {
  mkdirSync(dirname(path.pathname), { recursive: true });
  writeFileSync(path, `${JSON.stringify(run, null, 2)}\n`);
};

/** Reads a stored run; throws with the file name when it is not one. */
export const readRun = (file: string): StoredRun => {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as StoredRun;
  if (!Array.isArray(parsed.rows)) throw new Error(`${file} is not a benchmark result (no "rows")`);
  return parsed;
};

const fmt = (value: number | null | undefined): string =>
  value === null || value === undefined ? "-" : `${value >= 0.1 ? value.toFixed(2) : value.toFixed(3)}x`;
const change = (now: number | null, before: number | null): string =>
  now === null || before === null || before <= 0 ? "-" : `${(now / before).toFixed(2)}x`;

/** The comparison table: each ratio before and now, and now / before. */
export const renderComparison = (now: StoredRun, before: StoredRun, beforeName: string): string => {
  const header = ["scenario", "db", "vs floor before", "vs floor now", "change", "vs SQL before", "vs SQL now", "change", "cpu ms/req before", "now", "change"];
  const lines = now.rows.map((row) => {
    const old = before.rows.find((b) => b.scenario === row.scenario && b.db === row.db);
    return [
      row.scenario,
      row.db,
      fmt(old?.vsFloor ?? null),
      row.error !== null && row.vsFloor === null ? "FAILED" : fmt(row.vsFloor),
      change(row.vsFloor, old?.vsFloor ?? null),
      fmt(old?.vsSql ?? null),
      fmt(row.vsSql),
      change(row.vsSql, old?.vsSql ?? null),
      old?.cpuMsPerRequest == null ? "-" : old.cpuMsPerRequest.toFixed(3),
      row.cpuMsPerRequest === null ? "-" : row.cpuMsPerRequest.toFixed(3),
      // For CPU, less is better: before / now, so above 1.00x is an improvement here too.
      change(old?.cpuMsPerRequest ?? null, row.cpuMsPerRequest),
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? "").length)));
  const format = (line: ReadonlyArray<string>): string =>
    line.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  return [
    `compared with ${beforeName} (${before.date})`,
    format(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...lines.map(format),
    "change = now / before for ratios, before / now for CPU per request (above 1.00x: better than before)",
  ].join("\n");
};
