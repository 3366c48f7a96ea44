/**
 * File storage migration 19: the open upload sessions of one member of a workspace, indexed
 * (audit 2, F5): a member removal aborts them (core/files/MemberRemoval.ts, UploadsRepository's
 * `openOf`). Partial, as migration 5's: only open sessions are in it, and the reader states
 * `status = 'open'` as a literal (the predicate).
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX fs_upload_sessions_open_by_creator ON fs_upload_sessions (workspace_id, created_by) WHERE status = 'open'`];

/** Migration 19 of the file storage module. */
export const filesMigration0019: Migration = {
  version: 19,
  name: "open_uploads_by_creator",
  sqlite: statements,
  postgres: statements,
};
