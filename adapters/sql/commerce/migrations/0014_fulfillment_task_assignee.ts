/**
 * Commerce migration 14: a fulfillment task's assignee (spec, Authentication 2: "Warehouse
 * operator (assigned fulfillment tasks ...)"). `assignee_id` is the warehouse operator holding
 * the task, set and cleared only by conditional updates (a take moves it from NULL, an owner's
 * assignment from the assignee they saw); `assigned_at` is when, and the two are set together.
 * Operators list their own and the unassigned open tasks of a store, by id.
 */
import type { Migration } from "../../Migration.js";

const together = `CHECK ((assignee_id IS NULL) = (assigned_at IS NULL))`;

export const commerceMigration0014FulfillmentTaskAssignee: Migration = {
  version: 14,
  name: "fulfillment_task_assignee",
  sqlite: [
    `ALTER TABLE shop_fulfillment_tasks ADD COLUMN assignee_id TEXT CHECK (assignee_id IS NULL OR length(assignee_id) BETWEEN 1 AND 100)`,
    // SQLite checks a column's CHECK on every row, so the pairing lives on the second column.
    `ALTER TABLE shop_fulfillment_tasks ADD COLUMN assigned_at TEXT ${together}`,
    `CREATE INDEX shop_fulfillment_tasks_assignee ON shop_fulfillment_tasks (store_id, status, assignee_id, id)`,
  ],
  postgres: [
    `ALTER TABLE shop_fulfillment_tasks ADD COLUMN assignee_id text CHECK (assignee_id IS NULL OR length(assignee_id) BETWEEN 1 AND 100)`,
    `ALTER TABLE shop_fulfillment_tasks ADD COLUMN assigned_at timestamptz`,
    `ALTER TABLE shop_fulfillment_tasks ADD CONSTRAINT shop_fulfillment_tasks_assigned_together ${together}`,
    `CREATE INDEX shop_fulfillment_tasks_assignee ON shop_fulfillment_tasks (store_id, status, assignee_id, id)`,
  ],
};
