/**
 * File storage migration 8: an index of the changes addressed to one user (`node.left_view`), by
 * workspace, recipient and seq. A user removed from the workspace reads only the changes addressed
 * to them (core/files/ListChanges.ts): the index finds them without scanning the workspace's log.
 * Partial: such changes are rare, so it stays small.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX fs_changes_recipient ON fs_changes (workspace_id, recipient_id, seq) WHERE recipient_id IS NOT NULL`];

/** Migration 8 of the file storage module. */
export const filesMigration0008: Migration = {
  version: 8,
  name: "changes_recipient_index",
  sqlite: statements,
  postgres: statements,
};
