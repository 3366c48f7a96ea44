/** Storage of projects, project memberships and the membership audit log. */
import { Context, Effect } from "effect";
import type { MembershipAudit } from "../../core/projects/model/MembershipAudit.js";
import type { Project } from "../../core/projects/model/Project.js";
import type { ProjectMember } from "../../core/projects/model/ProjectMember.js";
import type { ProjectId } from "../../core/projects/model/Ids.js";
import type { ProjectRole, WorkspaceRole } from "../../core/projects/model/Roles.js";

/** A project with the roles one user holds on it and on its workspace (null: no membership). */
export interface ProjectWithRoles {
  readonly project: Project;
  readonly workspaceRole: WorkspaceRole | null;
  readonly projectRole: ProjectRole | null;
}

/** The project repository. */
export interface ProjectsRepository {
  readonly insertProject: (project: Project) => Effect.Effect<void>;
  /**
   * The project, or null. With `lock` the row stays locked until the transaction ends against
   * other locking reads (Postgres FOR NO KEY UPDATE: rows referencing the project, tasks among
   * them, do not wait for it; SQLite's single writer already serializes): what a bounded
   * collection of the project (custom fields, saved views) takes before it counts.
   */
  readonly findProject: (id: string, options?: { readonly lock?: boolean }) => Effect.Effect<Project | null>;
  /**
   * The project and `userId`'s workspace and project memberships of it, read together (one
   * statement on SQL: every access check of the module starts here); null for an unknown project.
   */
  readonly findProjectWithRoles: (projectId: string, userId: string) => Effect.Effect<ProjectWithRoles | null>;
  /** Adds the member or changes its role; answers which of the two happened. */
  readonly upsertMember: (member: ProjectMember) => Effect.Effect<"created" | "updated">;
  readonly findMember: (projectId: string, userId: string) => Effect.Effect<ProjectMember | null>;
  /** Removes the membership; false when there was none (a repeated revocation). */
  readonly removeMember: (projectId: string, userId: string) => Effect.Effect<boolean>;
  /** Removes every project membership of `userId` in the workspace; answers the project ids. */
  readonly removeMembershipsInWorkspace: (workspaceId: string, userId: string) => Effect.Effect<ReadonlyArray<ProjectId>>;
  /**
   * Sets `to` as the role of each of `userId`'s project memberships in the workspace whose role
   * is one of `from`; answers the ids of the projects changed. One statement on SQL, whatever
   * their number.
   */
  readonly lowerRolesInWorkspace: (
    userId: string,
    workspaceId: string,
    from: ReadonlyArray<ProjectRole>,
    to: ProjectRole,
  ) => Effect.Effect<ReadonlyArray<ProjectId>>;
  /**
   * Ids of every project `userId` can see, by id: all projects of the workspaces it owns and the
   * projects it is a member of (optionally within one workspace). One statement on SQL.
   * `atMost`: at most that many, in bounded work (the whole list when it is shorter, else
   * `atMost` of them): to learn whether a list of ids stays short.
   */
  readonly visibleProjectIds: (userId: string, workspaceId?: string, atMost?: number) => Effect.Effect<ReadonlyArray<ProjectId>>;
  /** Ids of every project of the given workspaces. */
  readonly projectIdsOfWorkspaces: (workspaceIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ProjectId>>;
  /** Appends one immutable audit record. */
  readonly appendAudit: (record: MembershipAudit) => Effect.Effect<void>;
  /**
   * Appends immutable audit records, any number of them, in order: on SQL in multi-row inserts
   * that each bind within the dialect's parameter limit.
   */
  readonly appendAudits: (records: ReadonlyArray<MembershipAudit>) => Effect.Effect<void>;
  /**
   * How many audit records one membership has (`projectId` null: the workspace membership, not
   * its projects'): every change of it appends one, so after the append it is the membership's
   * version. Read under the membership's lock, it counts every change committed before.
   */
  readonly countMembershipChanges: (membership: {
    readonly workspaceId: string;
    readonly projectId: string | null;
    readonly userId: string;
  }) => Effect.Effect<number>;
  /**
   * `countMembershipChanges` of every project membership `userId` ever had in the workspace, by
   * project id, in one grouped read (a project it never was a member of is absent).
   */
  readonly countProjectMembershipChangesInWorkspace: (workspaceId: string, userId: string) => Effect.Effect<ReadonlyMap<string, number>>;
}
export const ProjectsRepository = Context.GenericTag<ProjectsRepository>("domainkit/projects/ProjectsRepository");
