/**
 * Projects migration 23: workspace invitations (consent before membership). The database holds
 * their rules on both dialects:
 * - a known status and a workspace role; a decided invitation says when, by whom and why;
 * - one pending invitation per user and workspace (a partial unique index);
 * - an accepted, declined, cancelled or expired invitation never changes again;
 * - a pending one keeps whom it invites, to what and by whom, and its lifetime is never
 *   extended (shortening stays possible);
 * - an invitation is never deleted: it is the audit of who invited whom, why, and who decided.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const fixed = ["id", "workspace_id", "user_id", "role", "invited_by", "reason", "created_at"];
const all = [...fixed, "status", "expires_at", "decided_at", "decided_by", "decided_reason"];

const table = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  return [
    `CREATE TABLE pm_workspace_invitations (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      user_id ${text} NOT NULL,
      role ${text} NOT NULL CHECK (role IN ('owner', 'member', 'guest')),
      status ${text} NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled', 'expired')),
      invited_by ${text} NOT NULL,
      reason ${text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      created_at ${time} NOT NULL,
      expires_at ${time} NOT NULL,
      decided_at ${time},
      decided_by ${text},
      decided_reason ${text} CHECK (length(decided_reason) BETWEEN 1 AND 500),
      CHECK (expires_at > created_at),
      CHECK ((status = 'pending') = (decided_at IS NULL)),
      CHECK ((decided_at IS NULL) = (decided_by IS NULL) AND (decided_at IS NULL) = (decided_reason IS NULL))
    )`,
    // One pending invitation per user and workspace; the invitee's list of its pending ones.
    `CREATE UNIQUE INDEX pm_workspace_invitations_pending ON pm_workspace_invitations (workspace_id, user_id) WHERE status = 'pending'`,
    `CREATE INDEX pm_workspace_invitations_invitee ON pm_workspace_invitations (user_id, id) WHERE status = 'pending'`,
    // An owner's list of the workspace's invitations.
    `CREATE INDEX pm_workspace_invitations_workspace ON pm_workspace_invitations (workspace_id, id)`,
  ];
};

/** Migration 23 of the projects module. */
export const projectsMigration0023WorkspaceInvitations: Migration = {
  version: 23,
  name: "workspace_invitations",
  sqlite: [
    ...table("sqlite"),
    `CREATE TRIGGER pm_workspace_invitations_never_deleted BEFORE DELETE ON pm_workspace_invitations
     BEGIN SELECT RAISE(ABORT, 'pm_workspace_invitations: invitations are decided, never deleted'); END`,
    `CREATE TRIGGER pm_workspace_invitations_decision_final BEFORE UPDATE ON pm_workspace_invitations
     WHEN OLD.status <> 'pending' AND (${all.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")})
     BEGIN SELECT RAISE(ABORT, 'pm_workspace_invitations: a decided invitation never changes'); END`,
    `CREATE TRIGGER pm_workspace_invitations_fixed BEFORE UPDATE ON pm_workspace_invitations
     WHEN ${fixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'pm_workspace_invitations: an invitation never changes whom it invites, to what or by whom'); END`,
    // Times are ISO 8601 text of one form on SQLite, so they compare as text.
    `CREATE TRIGGER pm_workspace_invitations_lifetime_not_extended BEFORE UPDATE OF expires_at ON pm_workspace_invitations
     WHEN NEW.expires_at > OLD.expires_at
     BEGIN SELECT RAISE(ABORT, 'pm_workspace_invitations: an invitation''s lifetime is never extended'); END`,
  ],
  postgres: [
    ...table("postgres"),
    `CREATE FUNCTION pm_workspace_invitations_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'pm_workspace_invitations: invitations are decided, never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER pm_workspace_invitations_never_deleted BEFORE DELETE ON pm_workspace_invitations FOR EACH ROW EXECUTE FUNCTION pm_workspace_invitations_never_deleted()`,
    `CREATE FUNCTION pm_workspace_invitations_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF OLD.status <> 'pending' AND (${all.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")}) THEN
         RAISE EXCEPTION 'pm_workspace_invitations: a decided invitation never changes' USING ERRCODE = 'check_violation';
       END IF;
       IF ${fixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'pm_workspace_invitations: an invitation never changes whom it invites, to what or by whom' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.expires_at > OLD.expires_at THEN
         RAISE EXCEPTION 'pm_workspace_invitations: an invitation''s lifetime is never extended' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_workspace_invitations_row_rules BEFORE UPDATE ON pm_workspace_invitations FOR EACH ROW EXECUTE FUNCTION pm_workspace_invitations_row_rules()`,
  ],
};
