/**
 * Projects migration 21: pm_task_events_by_time (migration 20) becomes an index only the walk of
 * every visible project may use. As a full index, Postgres' planner chose it for one project's
 * page whenever that project held most events: estimating that the newest rows of the table would
 * soon match, it walked every other project's newer events (8.5 ms and 19,000 rows skipped for a
 * 51-row page that pm_task_events_feed answers in 0.03 ms; the bench's activity page went from
 * 1,231 to 222 req/s after the task-write scenarios). Its predicate is a clause no other query
 * states (SqlTasksRepository `byTimeWalk`), so no other plan can prove it; every event satisfies it.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `DROP INDEX pm_task_events_by_time`,
  `CREATE INDEX pm_task_events_by_time ON pm_task_events (created_at, id) WHERE created_at > '1970-01-01T00:00:00.000Z'`,
];

/** Migration 21 of the projects module. */
export const projectsMigration0021TaskEventsByTimeOptIn: Migration = {
  version: 21,
  name: "task_events_by_time_opt_in",
  sqlite: statements,
  postgres: statements,
};
