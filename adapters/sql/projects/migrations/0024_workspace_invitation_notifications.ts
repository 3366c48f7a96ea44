/**
 * Projects migration 24: an invitee's in-app notification of a workspace invitation. A
 * notification gets an `invitation_id`, and the database ties its kind to what it is about:
 * - the kind is `mention` or `workspace_invitation`;
 * - a mention has its project and no invitation; an invitation's notification has its invitation
 *   and no project;
 * - an invitation's notification is addressed to that invitation's invitee in its workspace (a
 *   composite reference to `(workspace_id, id, user_id)` of `pm_workspace_invitations`);
 * - its invitation never changes, as the rest of what places a notification (migration 14).
 *
 * SQLite cannot add these constraints to a table, so it rebuilds `pm_notifications` by its
 * documented procedure (https://sqlite.org/lang_altertable.html#otheralter), inside this
 * migration's transaction: a new table, the rows copied, the old one dropped, the new one
 * renamed, then every index and trigger of the old table made again. What the old table had:
 * migration 1 (the table, UNIQUE (recipient_id, event_id), the workspace reference), migration 2
 * (`project_id`, indexes `pm_notifications_feed` and `pm_notifications_unread`), migration 14
 * (trigger `pm_notifications_fixed`). No view and no other table's trigger or reference names it.
 * Postgres alters the table in place.
 */
import type { Migration } from "../../Migration.js";

const notificationFixed = ["id", "workspace_id", "project_id", "recipient_id", "event_id", "kind", "invitation_id"];

const kindRules = `CHECK (kind IN ('mention', 'workspace_invitation')),
      CHECK ((kind = 'mention' AND project_id IS NOT NULL AND invitation_id IS NULL)
        OR (kind = 'workspace_invitation' AND project_id IS NULL AND invitation_id IS NOT NULL))`;
const invitationReference = `FOREIGN KEY (workspace_id, invitation_id, recipient_id) REFERENCES pm_workspace_invitations (workspace_id, id, user_id)`;
const fixedMessage = "pm_notifications: a notification keeps its recipient and event, and stays read";

/** Migration 24 of the projects module. */
export const projectsMigration0024WorkspaceInvitationNotifications: Migration = {
  version: 24,
  name: "workspace_invitation_notifications",
  sqlite: [
    // The key an invitation's notification refers to.
    `CREATE UNIQUE INDEX pm_workspace_invitations_invitee_key ON pm_workspace_invitations (workspace_id, id, user_id)`,
    `CREATE TABLE pm_notifications_new (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES pm_workspaces (id),
      recipient_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      data TEXT NOT NULL,
      read_at TEXT,
      created_at TEXT NOT NULL,
      project_id TEXT,
      invitation_id TEXT,
      UNIQUE (recipient_id, event_id),
      ${kindRules},
      ${invitationReference}
    )`,
    `INSERT INTO pm_notifications_new (id, workspace_id, recipient_id, event_id, kind, data, read_at, created_at, project_id, invitation_id)
     SELECT id, workspace_id, recipient_id, event_id, kind, data, read_at, created_at, project_id, NULL FROM pm_notifications`,
    `DROP TABLE pm_notifications`,
    `ALTER TABLE pm_notifications_new RENAME TO pm_notifications`,
    `CREATE INDEX pm_notifications_feed ON pm_notifications (recipient_id, id)`,
    `CREATE INDEX pm_notifications_unread ON pm_notifications (recipient_id) WHERE read_at IS NULL`,
    `CREATE TRIGGER pm_notifications_fixed BEFORE UPDATE ON pm_notifications
     WHEN ${notificationFixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} OR (OLD.read_at IS NOT NULL AND NEW.read_at IS NULL)
     BEGIN SELECT RAISE(ABORT, '${fixedMessage}'); END`,
  ],
  postgres: [
    `CREATE UNIQUE INDEX pm_workspace_invitations_invitee_key ON pm_workspace_invitations (workspace_id, id, user_id)`,
    `ALTER TABLE pm_notifications ADD COLUMN invitation_id text`,
    `ALTER TABLE pm_notifications ADD CONSTRAINT pm_notifications_kind CHECK (kind IN ('mention', 'workspace_invitation'))`,
    `ALTER TABLE pm_notifications ADD CONSTRAINT pm_notifications_kind_subject
       CHECK ((kind = 'mention' AND project_id IS NOT NULL AND invitation_id IS NULL)
         OR (kind = 'workspace_invitation' AND project_id IS NULL AND invitation_id IS NOT NULL))`,
    `ALTER TABLE pm_notifications ADD CONSTRAINT pm_notifications_invitation ${invitationReference}`,
    `CREATE OR REPLACE FUNCTION pm_notifications_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${notificationFixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} OR (OLD.read_at IS NOT NULL AND NEW.read_at IS NULL) THEN
         RAISE EXCEPTION '${fixedMessage}' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
  ],
};
