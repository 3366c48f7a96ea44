/**
 * Planner statistics before a measurement. A scenario bulk-loads its fixtures (30,000 tasks, say)
 * and is measured seconds later, before Postgres' autovacuum has analyzed the grown tables, as it
 * has in any deployment that has been running for a minute. Plans made meanwhile are the plans of
 * an empty table: the foreign-key check of every task event scanned pm_tasks, and PATCH ran at
 * half its speed after the fixtures of projects-create-task (bench/README.md, sixth session).
 * SQLite keeps no automatic statistics, so there is nothing to bring up to date.
 */
import type { RawDatabase } from "./RawDatabase.js";

/** Brings the planner statistics of the benchmark's database up to date (Postgres: ANALYZE). */
export const analyzeFixtures = async (raw: RawDatabase): Promise<void> => {
  if (raw.dialect === "postgres") await raw.pool.query("ANALYZE");
};
