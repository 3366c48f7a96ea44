/**
 * Projects migration 9: a share link's revocation records its actor (`revoked_by`) beside its
 * time and reason (spec: permission and membership actions record actor and reason). Links
 * revoked before this migration have none, so the column stays nullable.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => [
  `ALTER TABLE pm_share_links ADD COLUMN revoked_by ${dialect === "sqlite" ? "TEXT" : "text"} CHECK (length(revoked_by) BETWEEN 1 AND 200)`,
];

/** Migration 9 of the project module. */
export const projectsMigration0009ShareLinkRevokedBy: Migration = {
  version: 9,
  name: "share_link_revoked_by",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
