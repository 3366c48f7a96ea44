/**
 * Projects migration 14: comments and notifications keep what places them, in the database
 * (spec, Relationships 2; Resources, Notification; docs/conventions.md, client mutation ids). The
 * database refuses, on both dialects:
 * - a change of a comment's id, workspace, project, task, author, client mutation id or creation
 *   time; an edit that does not advance its version (an edit is version-checked and each one is
 *   a CommentEdited at the new version); deleting a comment (there is no deletion of comments);
 * - a change of a notification's id, workspace, project, recipient, event or kind, and a read
 *   notification becoming unread (`read_at` is set once). Deleting notifications stays possible:
 *   they are a per-recipient projection, and a retention may remove them.
 */
import type { Migration } from "../../Migration.js";

const commentFixed = ["id", "workspace_id", "project_id", "task_id", "author_id", "client_mutation_id", "created_at"];
const notificationFixed = ["id", "workspace_id", "project_id", "recipient_id", "event_id", "kind"];

/** Migration 14 of the projects module. */
export const projectsMigration0014CommentNotificationRowRules: Migration = {
  version: 14,
  name: "comment_notification_row_rules",
  sqlite: [
    `CREATE TRIGGER pm_comments_never_deleted BEFORE DELETE ON pm_comments
     BEGIN SELECT RAISE(ABORT, 'pm_comments: comments are never deleted'); END`,
    `CREATE TRIGGER pm_comments_fixed BEFORE UPDATE ON pm_comments
     WHEN ${commentFixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'pm_comments: a comment never changes its task, author or client mutation id'); END`,
    `CREATE TRIGGER pm_comments_version_advances BEFORE UPDATE ON pm_comments
     WHEN NEW.version <= OLD.version
     BEGIN SELECT RAISE(ABORT, 'pm_comments: every edit of a comment is a new, greater version'); END`,
    `CREATE TRIGGER pm_notifications_fixed BEFORE UPDATE ON pm_notifications
     WHEN ${notificationFixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} OR (OLD.read_at IS NOT NULL AND NEW.read_at IS NULL)
     BEGIN SELECT RAISE(ABORT, 'pm_notifications: a notification keeps its recipient and event, and stays read'); END`,
  ],
  postgres: [
    `CREATE FUNCTION pm_comments_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'pm_comments: comments are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER pm_comments_never_deleted BEFORE DELETE ON pm_comments FOR EACH ROW EXECUTE FUNCTION pm_comments_never_deleted()`,
    `CREATE FUNCTION pm_comments_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${commentFixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'pm_comments: a comment never changes its task, author or client mutation id' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.version <= OLD.version THEN
         RAISE EXCEPTION 'pm_comments: every edit of a comment is a new, greater version' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_comments_row_rules BEFORE UPDATE ON pm_comments FOR EACH ROW EXECUTE FUNCTION pm_comments_row_rules()`,
    `CREATE FUNCTION pm_notifications_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${notificationFixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} OR (OLD.read_at IS NOT NULL AND NEW.read_at IS NULL) THEN
         RAISE EXCEPTION 'pm_notifications: a notification keeps its recipient and event, and stays read' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_notifications_row_rules BEFORE UPDATE ON pm_notifications FOR EACH ROW EXECUTE FUNCTION pm_notifications_row_rules()`,
  ],
};
