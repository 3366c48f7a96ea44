/**
 * Projects migration 16: a share link lives at most 30 days from its creation, in the database
 * (docs/decisions.md, share links: "7 days by default, 30 at most"; core/projects/ShareLinks.ts
 * `maxShareLinkSeconds` when this was written). Migration 12 refuses extending a link; this
 * refuses creating (or re-dating) one beyond the bound. Postgres: a CHECK; SQLite, which cannot
 * add a CHECK to a table, triggers on INSERT and on UPDATE of either time (whole seconds, as
 * `unixepoch` counts them).
 */
import type { Migration } from "../../Migration.js";

const longest = 30 * 24 * 3600;
const tooLong = `unixepoch(NEW.expires_at) - unixepoch(NEW.created_at) > ${longest}`;

/** Migration 16 of the projects module. */
export const projectsMigration0016ShareLinkLongestLifetime: Migration = {
  version: 16,
  name: "share_link_longest_lifetime",
  sqlite: [
    `CREATE TRIGGER pm_share_links_longest_lifetime_insert BEFORE INSERT ON pm_share_links
     WHEN ${tooLong}
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: a link lives at most 30 days'); END`,
    `CREATE TRIGGER pm_share_links_longest_lifetime_update BEFORE UPDATE OF created_at, expires_at ON pm_share_links
     WHEN ${tooLong}
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: a link lives at most 30 days'); END`,
  ],
  postgres: [`ALTER TABLE pm_share_links ADD CONSTRAINT pm_share_links_longest_lifetime CHECK (expires_at <= created_at + interval '${longest} seconds')`],
};
