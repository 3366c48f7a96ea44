/**
 * Projects migration 2: notifications get their project (so reads filter by visibility before
 * the limit) and feed/unread indexes; comments get an edit version; the search index of tasks
 * and comments — an FTS5 table on SQLite, a tsvector column with a GIN index on Postgres, both
 * beside one `pm_search_docs` table carrying the tenant, project, task and source version.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  // SQLite: an INTEGER PRIMARY KEY aliases the rowid, so VACUUM keeps the FTS rows pointing right.
  const key = dialect === "sqlite" ? "rid INTEGER PRIMARY KEY,\n      id TEXT NOT NULL UNIQUE," : "id text PRIMARY KEY,";
  const docs = (extra: string) => `CREATE TABLE pm_search_docs (
      ${key}
      kind ${text} NOT NULL CHECK (kind IN ('task', 'comment')),
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      body ${text} NOT NULL,
      version ${int} NOT NULL CHECK (version >= 0)${extra}
    )`;
  return [
    `ALTER TABLE pm_notifications ADD COLUMN project_id ${text}`,
    `CREATE INDEX pm_notifications_feed ON pm_notifications (recipient_id, id)`,
    `CREATE INDEX pm_notifications_unread ON pm_notifications (recipient_id) WHERE read_at IS NULL`,
    `ALTER TABLE pm_comments ADD COLUMN version ${int} NOT NULL DEFAULT 1 CHECK (version > 0)`,
    `ALTER TABLE pm_comments ADD COLUMN edited_at ${time}`,
    ...(dialect === "sqlite"
      ? [
          // The FTS row's rowid is the document's rid.
          docs(""),
          `CREATE VIRTUAL TABLE pm_search_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
        ]
      : [docs(`,\n      tsv tsvector NOT NULL`), `CREATE INDEX pm_search_docs_tsv ON pm_search_docs USING GIN (tsv)`]),
    `CREATE INDEX pm_search_docs_project ON pm_search_docs (project_id, id)`,
  ];
};

/** Migration 2 of module "projects". */
export const projectsMigration0002: Migration = {
  version: 2,
  name: "notifications_comment_edits_search",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
