/**
 * Projects migration 12: the share link rules hold in the database (spec, Authentication 4;
 * What the service does: actions "record actor and reason"; docs/decisions.md, share links). The
 * code revokes with a conditional update (`WHERE revoked_at IS NULL`); the database now also
 * refuses, on both dialects:
 * - un-revoking a link, or changing its revocation once made (the first actor and reason stand);
 * - a change of the link's id, workspace, project, creator or token hash;
 * - a later `expires_at` (a link's lifetime is never extended past what it was created with;
 *   shortening stays possible);
 * - a DELETE: links are kept, revoked, for audit.
 */
import type { Migration } from "../../Migration.js";

const fixed = ["id", "workspace_id", "project_id", "created_by", "token_hash"];
const revocation = ["revoked_at", "revoked_reason", "revoked_by"];

/** Migration 12 of the projects module. */
export const projectsMigration0012ShareLinkRowRules: Migration = {
  version: 12,
  name: "share_link_row_rules",
  sqlite: [
    `CREATE TRIGGER pm_share_links_never_deleted BEFORE DELETE ON pm_share_links
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: links are revoked, never deleted'); END`,
    `CREATE TRIGGER pm_share_links_fixed BEFORE UPDATE ON pm_share_links
     WHEN ${fixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: a link never changes its project, creator or token'); END`,
    `CREATE TRIGGER pm_share_links_revocation_final BEFORE UPDATE ON pm_share_links
     WHEN OLD.revoked_at IS NOT NULL AND (${revocation.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")})
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: a revocation is final'); END`,
    // Times are ISO 8601 text of one form on SQLite, so they compare as text.
    `CREATE TRIGGER pm_share_links_lifetime_not_extended BEFORE UPDATE OF expires_at ON pm_share_links
     WHEN NEW.expires_at > OLD.expires_at
     BEGIN SELECT RAISE(ABORT, 'pm_share_links: a link''s lifetime is never extended'); END`,
  ],
  postgres: [
    `CREATE FUNCTION pm_share_links_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'pm_share_links: links are revoked, never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER pm_share_links_never_deleted BEFORE DELETE ON pm_share_links FOR EACH ROW EXECUTE FUNCTION pm_share_links_never_deleted()`,
    `CREATE FUNCTION pm_share_links_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${fixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'pm_share_links: a link never changes its project, creator or token' USING ERRCODE = 'check_violation';
       END IF;
       IF OLD.revoked_at IS NOT NULL AND (${revocation.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")}) THEN
         RAISE EXCEPTION 'pm_share_links: a revocation is final' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.expires_at > OLD.expires_at THEN
         RAISE EXCEPTION 'pm_share_links: a link''s lifetime is never extended' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_share_links_row_rules BEFORE UPDATE ON pm_share_links FOR EACH ROW EXECUTE FUNCTION pm_share_links_row_rules()`,
  ],
};
