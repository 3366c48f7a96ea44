/** Request shapes of the project endpoints (snake_case, docs/conventions.md, HTTP); responses are the derived wire shapes of core/projects/model. */
import { Schema } from "effect";
import { ProjectRole, WorkspaceRole } from "../../../core/projects/model/Roles.js";
import { TaskStatus } from "../../../core/projects/model/Task.js";
import {
  AttachmentId,
  CommentId,
  NotificationId,
  ProjectId,
  SavedViewId,
  ShareLinkId,
  TaskId,
  WorkspaceExportId,
  WorkspaceId,
  WorkspaceInvitationId,
} from "../../../core/projects/model/Ids.js";
import { pageQueryFields } from "../Pagination.js";
import { idOf, RouteId } from "../RouteIds.js";

/** A user id (the `sub` of a token): a UUID. */
export const UserId = Schema.String.pipe(
  Schema.filter((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) || "must be a UUID"),
);

const Id = RouteId;

/** `:id` of a workspace. */
export const WorkspaceParams = Schema.Struct({ id: idOf(WorkspaceId) });
/** `:id` of a project. */
export const ProjectParams = Schema.Struct({ id: idOf(ProjectId) });
/** `:id` of a task. */
export const TaskParams = Schema.Struct({ id: idOf(TaskId) });
/** `:id` of a comment. */
export const CommentParams = Schema.Struct({ id: idOf(CommentId) });
/** `:id` of an attachment. */
export const AttachmentParams = Schema.Struct({ id: idOf(AttachmentId) });
/** `:id` of a saved view. */
export const SavedViewParams = Schema.Struct({ id: idOf(SavedViewId) });
/** `:id` of a share link. */
export const ShareLinkParams = Schema.Struct({ id: idOf(ShareLinkId) });
/** `:id` of a workspace export. */
export const ExportParams = Schema.Struct({ id: idOf(WorkspaceExportId) });
/** `:id` of a notification. */
export const NotificationParams = Schema.Struct({ id: idOf(NotificationId) });

/** `:id` of a workspace invitation. */
export const InvitationParams = Schema.Struct({ id: idOf(WorkspaceInvitationId) });
/** `/v1/workspaces/:id/invitations/:invitationId` path parameters. */
export const WorkspaceInvitationParams = Schema.Struct({ id: idOf(WorkspaceId), invitationId: idOf(WorkspaceInvitationId) });

/** `/v1/workspaces/:id/members/:userId` path parameters. */
export const WorkspaceMemberParams = Schema.Struct({ id: idOf(WorkspaceId), userId: Id });
/** `/v1/projects/:id/members/:userId` path parameters. */
export const ProjectMemberParams = Schema.Struct({ id: idOf(ProjectId), userId: Id });

/** Body of POST /v1/workspaces and POST /v1/workspaces/:id/projects. */
export const NameBody = Schema.Struct({ name: Schema.String });

/** Body of POST /v1/workspaces/:id/members. */
export const WorkspaceMemberBody = Schema.Struct({
  user_id: UserId,
  role: WorkspaceRole,
  reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))),
});

/** Body of POST /v1/workspaces/:id/invitations: whom to invite, with which workspace role, and why. */
export const InvitationBody = WorkspaceMemberBody;

/** Body of POST /v1/projects/:id/members. */
export const ProjectMemberBody = Schema.Struct({
  user_id: UserId,
  role: ProjectRole,
  reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))),
});

/** Query of the membership DELETEs: why (recorded in the audit log). */
export const ReasonQuery = Schema.Struct({
  reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))),
});

/** Body of POST /v1/projects/:id/tasks. */
export const CreateTaskBody = Schema.Struct({
  title: Schema.String,
  status: Schema.optional(TaskStatus),
  assignee_id: Schema.optional(Schema.NullOr(UserId)),
});

/** Body of PATCH /v1/tasks/:id: only the fields to change. */
export const PatchTaskBody = Schema.Struct({
  title: Schema.optional(Schema.String),
  status: Schema.optional(TaskStatus),
  assignee_id: Schema.optional(Schema.NullOr(UserId)),
});

/** Query of GET /v1/projects/:id/tasks. */
export const TaskListQuery = Schema.Struct({ status: Schema.optional(TaskStatus), ...pageQueryFields });

/** Body of POST /v1/tasks/:id/comments. */
export const CommentBody = Schema.Struct({
  body: Schema.String,
  mentions: Schema.optionalWith(Schema.Array(UserId), { default: () => [] }),
  client_mutation_id: Schema.String,
});

/** Query of the cursor lists. */
export const PageQuery = Schema.Struct(pageQueryFields);

/** Query of GET /v1/activity. */
export const ActivityQuery = Schema.Struct({ workspace_id: Schema.optional(idOf(WorkspaceId)), ...pageQueryFields });
