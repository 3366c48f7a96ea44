/**
 * The ids of the project module's records, branded so that one record's id cannot be passed
 * where another's is expected. Ids are made by the `Ids` port as plain strings and branded where
 * a record is created (`TaskId.make(yield* ids.next)`); route parameters and stored rows decode
 * into the brands. An id is any non-empty string here (what the routes accept; ids the server
 * makes are UUIDv7): a malformed id still answers 404, as before the brands.
 */
import { Schema } from "effect";

/** A workspace's id (the tenant key). */
export const WorkspaceId = Schema.String.pipe(Schema.brand("WorkspaceId"));
export type WorkspaceId = typeof WorkspaceId.Type;

/** A project's id. */
export const ProjectId = Schema.String.pipe(Schema.brand("ProjectId"));
export type ProjectId = typeof ProjectId.Type;

/** A task's id. */
export const TaskId = Schema.String.pipe(Schema.brand("TaskId"));
export type TaskId = typeof TaskId.Type;

/** A comment's id. */
export const CommentId = Schema.String.pipe(Schema.brand("CommentId"));
export type CommentId = typeof CommentId.Type;

/** An attachment's id. */
export const AttachmentId = Schema.String.pipe(Schema.brand("AttachmentId"));
export type AttachmentId = typeof AttachmentId.Type;

/** A custom field's id. */
export const CustomFieldId = Schema.String.pipe(Schema.brand("CustomFieldId"));
export type CustomFieldId = typeof CustomFieldId.Type;

/** A notification's id. */
export const NotificationId = Schema.String.pipe(Schema.brand("NotificationId"));
export type NotificationId = typeof NotificationId.Type;

/** A saved view's id. */
export const SavedViewId = Schema.String.pipe(Schema.brand("SavedViewId"));
export type SavedViewId = typeof SavedViewId.Type;

/** A share link's id. */
export const ShareLinkId = Schema.String.pipe(Schema.brand("ShareLinkId"));
export type ShareLinkId = typeof ShareLinkId.Type;

/** A task event's id (the activity feed). */
export const TaskEventId = Schema.String.pipe(Schema.brand("TaskEventId"));
export type TaskEventId = typeof TaskEventId.Type;

/** A workspace export's id. */
export const WorkspaceExportId = Schema.String.pipe(Schema.brand("WorkspaceExportId"));
export type WorkspaceExportId = typeof WorkspaceExportId.Type;

/** A membership audit record's id. */
export const MembershipAuditId = Schema.String.pipe(Schema.brand("MembershipAuditId"));
export type MembershipAuditId = typeof MembershipAuditId.Type;

/** A workspace invitation's id. */
export const WorkspaceInvitationId = Schema.String.pipe(Schema.brand("WorkspaceInvitationId"));
export type WorkspaceInvitationId = typeof WorkspaceInvitationId.Type;
