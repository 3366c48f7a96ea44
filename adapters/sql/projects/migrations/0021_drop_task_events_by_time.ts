/**
 * Projects migration 21: drops pm_task_events_by_time (migration 20). The activity feed of a user
 * who sees more projects than a read lists now walks each of the user's workspaces through
 * pm_task_events_workspace_feed (SqlTasksRepository `listEvents`), so nothing walks every
 * tenant's events by time any more. And the index misled Postgres' planner: it chose it for one
 * project's page whenever that project held most events, estimating that the newest rows of the
 * table would soon match, and walked every other project's newer events first (8.5 ms and 19,000
 * rows skipped for a 51-row page that pm_task_events_feed answers in 0.03 ms; the bench's activity
 * page went from 1,231 to 222 req/s after the task-write scenarios).
 */
import type { Migration } from "../../Migration.js";

const statements = [`DROP INDEX pm_task_events_by_time`];

/** Migration 21 of the projects module. */
export const projectsMigration0021DropTaskEventsByTime: Migration = {
  version: 21,
  name: "drop_task_events_by_time",
  sqlite: statements,
  postgres: statements,
};
