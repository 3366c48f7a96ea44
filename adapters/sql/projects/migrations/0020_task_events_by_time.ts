/**
 * Projects migration 20: the activity feed of a user who sees more projects than a read binds
 * (core/projects/Access.ts listedProjectsAtMost) walks the events by time, every project at
 * once, filtered by membership in the query (security audit 2, F2): one index in
 * (created_at, id) order for the whole feed, one per workspace for the feed of one workspace.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX pm_task_events_by_time ON pm_task_events (created_at, id)`,
  `CREATE INDEX pm_task_events_workspace_feed ON pm_task_events (workspace_id, created_at, id)`,
];

/** Migration 20 of the projects module. */
export const projectsMigration0020TaskEventsByTime: Migration = {
  version: 20,
  name: "task_events_by_time",
  sqlite: statements,
  postgres: statements,
};
