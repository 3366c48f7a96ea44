/**
 * File storage migration 5: the open upload sessions, indexed apart. The metrics scrape counts
 * them (`domainkit_files_uploads_open`); fs_upload_sessions_open leads with the workspace, so
 * that count read every session ever opened. Partial: only open sessions are in it, and the
 * reader states `status = 'open'` as a literal (the predicate).
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX fs_upload_sessions_open_only ON fs_upload_sessions (id) WHERE status = 'open'`];

/** Migration 5 of the file storage module. */
export const filesMigration0005: Migration = {
  version: 5,
  name: "open_upload_sessions",
  sqlite: statements,
  postgres: statements,
};
