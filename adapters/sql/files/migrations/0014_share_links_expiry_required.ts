/**
 * File storage migration 14: the database refuses a share link without an expiry (spec,
 * ShareLink: "Token is high-entropy, stored only as a hash, expiring, revocable"). Migration 13
 * gave the links stored without one an expiry and the core gives every new link one; this one
 * gives any link still stored without one (written by another writer since) the same expiry, 30
 * days after this migration, then holds the rule: NOT NULL on Postgres; on SQLite, where a column
 * cannot be altered, a trigger refusing an insert and one refusing an update without an expiry.
 */
import type { Migration } from "../../Migration.js";

/** Migration 14 of the file storage module. */
export const filesMigration0014: Migration = {
  version: 14,
  name: "share_links_expiry_required",
  sqlite: [
    // The text form the SQLite adapter writes (Date.toISOString), as migration 13.
    `UPDATE fs_share_links SET expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+30 days') WHERE expires_at IS NULL`,
    `CREATE TRIGGER fs_share_links_expiry_required_insert BEFORE INSERT ON fs_share_links
     WHEN NEW.expires_at IS NULL
     BEGIN SELECT RAISE(ABORT, 'fs_share_links: a share link expires (expires_at is required)'); END`,
    `CREATE TRIGGER fs_share_links_expiry_required_update BEFORE UPDATE ON fs_share_links
     WHEN NEW.expires_at IS NULL
     BEGIN SELECT RAISE(ABORT, 'fs_share_links: a share link expires (expires_at is required)'); END`,
  ],
  postgres: [
    `UPDATE fs_share_links SET expires_at = now() + interval '30 days' WHERE expires_at IS NULL`,
    `ALTER TABLE fs_share_links ALTER COLUMN expires_at SET NOT NULL`,
  ],
};
