/**
 * The projects module's migrations, one file per version (`NNNN_name.ts`). A released migration never
 * changes and a version number is never reused: version 3 was never released (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";
import { projectsMigration0001 } from "./0001_project_tables.js";
import { projectsMigration0002 } from "./0002_notifications_comment_edits_search.js";
import { projectsMigration0004Attachments } from "./0004_attachments_and_exports.js";
import { projectsMigration0005CustomFieldsViewsDependencies } from "./0005_custom_fields_views_dependencies.js";
import { projectsMigration0006ShareLinks } from "./0006_share_links.js";
import { projectsMigration0007Thumbnails } from "./0007_attachment_thumbnails.js";
import { projectsMigration0008SavedViewIndexes } from "./0008_saved_view_indexes.js";
import { projectsMigration0009ShareLinkRevokedBy } from "./0009_share_link_revoked_by.js";
import { projectsMigration0010SearchIndexWithoutPendingList } from "./0010_search_index_without_pending_list.js";
import { projectsMigration0011TaskRowRules } from "./0011_task_row_rules.js";
import { projectsMigration0012ShareLinkRowRules } from "./0012_share_link_row_rules.js";
import { projectsMigration0013AttachmentExportRowRules } from "./0013_attachment_export_row_rules.js";
import { projectsMigration0014CommentNotificationRowRules } from "./0014_comment_notification_row_rules.js";
import { projectsMigration0015GuestsNeverProjectAdmins } from "./0015_guests_never_project_admins.js";
import { projectsMigration0016ShareLinkLongestLifetime } from "./0016_share_link_longest_lifetime.js";
import { projectsMigration0017DependencyAudit } from "./0017_dependency_audit.js";
import { projectsMigration0018ExportAndQuarantineRetention } from "./0018_export_and_quarantine_retention.js";
import { projectsMigration0019MembershipAuditByMembership } from "./0019_membership_audit_by_membership.js";
import { projectsMigration0020TaskEventsByTime } from "./0020_task_events_by_time.js";
import { projectsMigration0021DropTaskEventsByTime } from "./0021_drop_task_events_by_time.js";
import { projectsMigration0022ProjectMembersByUserInProjectOrder } from "./0022_project_members_by_user_in_project_order.js";
import { projectsMigration0023WorkspaceInvitations } from "./0023_workspace_invitations.js";
import { projectsMigration0024WorkspaceInvitationNotifications } from "./0024_workspace_invitation_notifications.js";

/** Migrations of the projects module, in version order. */
export const projectsMigrations: ReadonlyArray<Migration> = [
  projectsMigration0001,
  projectsMigration0002,
  projectsMigration0004Attachments,
  projectsMigration0005CustomFieldsViewsDependencies,
  projectsMigration0006ShareLinks,
  projectsMigration0007Thumbnails,
  projectsMigration0008SavedViewIndexes,
  projectsMigration0009ShareLinkRevokedBy,
  projectsMigration0010SearchIndexWithoutPendingList,
  projectsMigration0011TaskRowRules,
  projectsMigration0012ShareLinkRowRules,
  projectsMigration0013AttachmentExportRowRules,
  projectsMigration0014CommentNotificationRowRules,
  projectsMigration0015GuestsNeverProjectAdmins,
  projectsMigration0016ShareLinkLongestLifetime,
  projectsMigration0017DependencyAudit,
  projectsMigration0018ExportAndQuarantineRetention,
  projectsMigration0019MembershipAuditByMembership,
  projectsMigration0020TaskEventsByTime,
  projectsMigration0021DropTaskEventsByTime,
  projectsMigration0022ProjectMembersByUserInProjectOrder,
  projectsMigration0023WorkspaceInvitations,
  projectsMigration0024WorkspaceInvitationNotifications,
];
