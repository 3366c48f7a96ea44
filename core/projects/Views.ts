/**
 * Wire shapes (snake_case, conventions.md) of the project module's records, as Schemas: the
 * HTTP routes declare them as responses and events carry the same shapes in `data`.
 */
import { Schema } from "effect";
import type { Comment, Project, ProjectMember, Task, TaskEvent, Workspace, WorkspaceMember } from "./Records.js";
import { ProjectRole, WorkspaceRole } from "./Roles.js";
import { TaskStatus } from "./TaskWorkflow.js";

/** A workspace as its members see it, with the caller's role. */
export const WorkspaceView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_by: Schema.String,
  created_at: Schema.String,
  role: WorkspaceRole,
});
export type WorkspaceView = typeof WorkspaceView.Type;

/** A workspace membership. */
export const WorkspaceMemberView = Schema.Struct({
  workspace_id: Schema.String,
  user_id: Schema.String,
  role: WorkspaceRole,
  created_at: Schema.String,
});

/** A project, with the caller's effective role. */
export const ProjectView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  created_by: Schema.String,
  created_at: Schema.String,
  role: ProjectRole,
});

/** A project membership. */
export const ProjectMemberView = Schema.Struct({
  workspace_id: Schema.String,
  project_id: Schema.String,
  user_id: Schema.String,
  role: ProjectRole,
  added_by: Schema.String,
  created_at: Schema.String,
});

/** A task. */
export const TaskView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  project_id: Schema.String,
  title: Schema.String,
  status: TaskStatus,
  assignee_id: Schema.NullOr(Schema.String),
  rank: Schema.String,
  version: Schema.Int,
  deleted_at: Schema.NullOr(Schema.String),
  created_by: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
});
export type TaskView = typeof TaskView.Type;

/** A comment. */
export const CommentView = Schema.Struct({
  id: Schema.String,
  task_id: Schema.String,
  project_id: Schema.String,
  workspace_id: Schema.String,
  author_id: Schema.String,
  body: Schema.String,
  mentions: Schema.Array(Schema.String),
  client_mutation_id: Schema.String,
  created_at: Schema.String,
});

/** One activity entry (a TaskEvent). */
export const ActivityView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  project_id: Schema.String,
  task_id: Schema.String,
  actor_id: Schema.String,
  kind: Schema.String,
  data: Schema.Unknown,
  created_at: Schema.String,
});

const iso = (date: Date): string => date.toISOString();

/** Wire shape of a workspace for a caller holding `role`. */
export const workspaceView = (w: Workspace, role: WorkspaceView["role"]): WorkspaceView => ({
  id: w.id,
  name: w.name,
  created_by: w.createdBy,
  created_at: iso(w.createdAt),
  role,
});

/** Wire shape of a workspace membership. */
export const workspaceMemberView = (m: WorkspaceMember): typeof WorkspaceMemberView.Type => ({
  workspace_id: m.workspaceId,
  user_id: m.userId,
  role: m.role,
  created_at: iso(m.createdAt),
});

/** Wire shape of a project for a caller with effective `role`. */
export const projectView = (p: Project, role: ProjectRole): typeof ProjectView.Type => ({
  id: p.id,
  workspace_id: p.workspaceId,
  name: p.name,
  created_by: p.createdBy,
  created_at: iso(p.createdAt),
  role,
});

/** Wire shape of a project membership. */
export const projectMemberView = (m: ProjectMember): typeof ProjectMemberView.Type => ({
  workspace_id: m.workspaceId,
  project_id: m.projectId,
  user_id: m.userId,
  role: m.role,
  added_by: m.addedBy,
  created_at: iso(m.createdAt),
});

/** Wire shape of a task. */
export const taskView = (t: Task): TaskView => ({
  id: t.id,
  workspace_id: t.workspaceId,
  project_id: t.projectId,
  title: t.title,
  status: t.status,
  assignee_id: t.assigneeId,
  rank: t.rank,
  version: t.version,
  deleted_at: t.deletedAt === null ? null : iso(t.deletedAt),
  created_by: t.createdBy,
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});

/** Wire shape of a comment. */
export const commentView = (c: Comment): typeof CommentView.Type => ({
  id: c.id,
  task_id: c.taskId,
  project_id: c.projectId,
  workspace_id: c.workspaceId,
  author_id: c.authorId,
  body: c.body,
  mentions: [...c.mentions],
  client_mutation_id: c.clientMutationId,
  created_at: iso(c.createdAt),
});

/** Wire shape of an activity entry. */
export const activityView = (e: TaskEvent): typeof ActivityView.Type => ({
  id: e.id,
  workspace_id: e.workspaceId,
  project_id: e.projectId,
  task_id: e.taskId,
  actor_id: e.actorId,
  kind: e.kind,
  data: e.data,
  created_at: iso(e.createdAt),
});
