/** Row <-> record mapping of the project tables (times and JSON through the dialect features). */
import type { Comment, Project, ProjectMember, Task, TaskEvent, Workspace, WorkspaceMember } from "../../../core/projects/Records.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { toNumber } from "../runQuery.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const time = (f: DialectFeatures, value: unknown): Date => f.timeFromDb(value);
const timeOrNull = (f: DialectFeatures, value: unknown): Date | null => (value === null || value === undefined ? null : f.timeFromDb(value));

/** A workspace row as a record. */
export const workspaceFromRow = (f: DialectFeatures, r: any): Workspace => ({
  id: String(r.id),
  name: String(r.name),
  createdBy: String(r.created_by),
  createdAt: time(f, r.created_at),
});

/** A workspace membership row as a record. */
export const workspaceMemberFromRow = (f: DialectFeatures, r: any): WorkspaceMember => ({
  workspaceId: String(r.workspace_id),
  userId: String(r.user_id),
  role: r.role,
  createdAt: time(f, r.created_at),
});

/** A project row as a record. */
export const projectFromRow = (f: DialectFeatures, r: any): Project => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  name: String(r.name),
  createdBy: String(r.created_by),
  createdAt: time(f, r.created_at),
});

/** A project membership row as a record. */
export const projectMemberFromRow = (f: DialectFeatures, r: any): ProjectMember => ({
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  userId: String(r.user_id),
  role: r.role,
  addedBy: String(r.added_by),
  createdAt: time(f, r.created_at),
});

/** A task as a row. */
export const taskToRow = (f: DialectFeatures, t: Task) => ({
  id: t.id,
  workspace_id: t.workspaceId,
  project_id: t.projectId,
  title: t.title,
  status: t.status,
  assignee_id: t.assigneeId,
  rank: t.rank,
  version: t.version,
  deleted_at: t.deletedAt === null ? null : f.timeToDb(t.deletedAt),
  created_by: t.createdBy,
  created_at: f.timeToDb(t.createdAt),
  updated_at: f.timeToDb(t.updatedAt),
});

/** A task row as a record. */
export const taskFromRow = (f: DialectFeatures, r: any): Task => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  title: String(r.title),
  status: r.status,
  assigneeId: r.assignee_id === null ? null : String(r.assignee_id),
  rank: String(r.rank),
  version: toNumber(r.version),
  deletedAt: timeOrNull(f, r.deleted_at),
  createdBy: String(r.created_by),
  createdAt: time(f, r.created_at),
  updatedAt: time(f, r.updated_at),
});

/** A comment row as a record. */
export const commentFromRow = (f: DialectFeatures, r: any): Comment => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  taskId: String(r.task_id),
  authorId: String(r.author_id),
  body: String(r.body),
  mentions: f.jsonFromDb(r.mentions) as string[],
  clientMutationId: String(r.client_mutation_id),
  createdAt: time(f, r.created_at),
});

/** A task event row as a record. */
export const taskEventFromRow = (f: DialectFeatures, r: any): TaskEvent => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  taskId: String(r.task_id),
  actorId: String(r.actor_id),
  kind: String(r.kind),
  data: f.jsonFromDb(r.data) as Record<string, unknown>,
  createdAt: time(f, r.created_at),
});
