/**
 * File storage migration 13: every share link expires (spec, ShareLink: "Token is high-entropy,
 * stored only as a hash, expiring, revocable"). A link stored without an expiry (the core accepted
 * `expires_at` omitted until now, and such a link never expired) expires 30 days after this
 * migration: its owner has that long to make a new one. New links always get one from the core
 * (ShareLinks.ts). The column stays nullable for now: the repository contract kit
 * (test/contract/files/ShareLinksRepositoryKit.ts) still stores links without an expiry, so the
 * NOT NULL constraint waits for that kit to change (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";

/** Migration 13 of the file storage module. */
export const filesMigration0013: Migration = {
  version: 13,
  name: "share_links_expire",
  // The text form the SQLite adapter writes (Date.toISOString: 2026-11-28T08:16:06.123Z).
  sqlite: [`UPDATE fs_share_links SET expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+30 days') WHERE expires_at IS NULL`],
  postgres: [`UPDATE fs_share_links SET expires_at = now() + interval '30 days' WHERE expires_at IS NULL`],
};
