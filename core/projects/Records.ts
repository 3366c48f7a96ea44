/** The records of the project module as the core handles them (camelCase; adapters map rows). */
import type { ProjectRole, WorkspaceRole } from "./Roles.js";
import type { TaskStatus } from "./TaskWorkflow.js";

/** The tenant. */
export interface Workspace {
  readonly id: string;
  readonly name: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

/** A user's tenant-level membership. */
export interface WorkspaceMember {
  readonly workspaceId: string;
  readonly userId: string;
  readonly role: WorkspaceRole;
  readonly createdAt: Date;
}

/** A project of one workspace. */
export interface Project {
  readonly id: string;
  readonly workspaceId: string;
  readonly name: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

/** A user's membership of one project (unique per project and user). */
export interface ProjectMember {
  readonly workspaceId: string;
  readonly projectId: string;
  readonly userId: string;
  readonly role: ProjectRole;
  readonly addedBy: string;
  readonly createdAt: Date;
}

/** A task; `version` > 0 advances by one on every accepted change. */
export interface Task {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly title: string;
  readonly status: TaskStatus;
  readonly assigneeId: string | null;
  /** Fractional ordering key within the project; ties are broken by id. */
  readonly rank: string;
  readonly version: number;
  readonly deletedAt: Date | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A comment; (authorId, taskId, clientMutationId) is unique so a retry finds the first one. */
export interface Comment {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly authorId: string;
  readonly body: string;
  readonly mentions: ReadonlyArray<string>;
  readonly clientMutationId: string;
  readonly createdAt: Date;
}

/** One append-only activity fact about a task (its id is the outbox event's id). */
export interface TaskEvent {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly actorId: string;
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

/** Audit of a permission or membership change: who did it and why. */
export interface MembershipAudit {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string | null;
  readonly userId: string;
  readonly actorId: string;
  readonly action: string;
  readonly role: string | null;
  readonly reason: string;
  readonly createdAt: Date;
}
