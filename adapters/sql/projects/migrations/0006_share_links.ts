/**
 * Projects migration 6: read-only project share links. Only the SHA-256 of a link's token is
 * stored (UNIQUE, so a token resolves to one row by index); the composite foreign key keeps a
 * link inside its project's workspace; a link always expires after it was created, and a
 * revocation always carries its reason.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const tables = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  return [
    `CREATE TABLE pm_share_links (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      created_by ${text} NOT NULL,
      token_hash ${text} NOT NULL UNIQUE CHECK (length(token_hash) = 64),
      created_at ${time} NOT NULL,
      expires_at ${time} NOT NULL,
      revoked_at ${time},
      revoked_reason ${text} CHECK (length(revoked_reason) BETWEEN 1 AND 100),
      CHECK (expires_at > created_at),
      CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL)),
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id)
    )`,
    // Listing a project's links, and revoking a removed member's links in one statement.
    `CREATE INDEX pm_share_links_project ON pm_share_links (project_id, created_by)`,
    `CREATE INDEX pm_share_links_creator ON pm_share_links (workspace_id, created_by)`,
  ];
};

/** Migration 6 of the project module. */
export const projectsMigration0006ShareLinks: Migration = {
  version: 6,
  name: "share_links",
  sqlite: tables("sqlite"),
  postgres: tables("postgres"),
};
