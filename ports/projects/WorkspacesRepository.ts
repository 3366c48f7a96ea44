/** Storage of workspaces and their memberships. Every call joins the open transaction. */
import { Context, Effect } from "effect";
import type { Workspace } from "../../core/projects/model/Workspace.js";
import type { WorkspaceMember } from "../../core/projects/model/WorkspaceMember.js";
import type { WorkspaceRole } from "../../core/projects/model/Roles.js";
import type { WorkspaceId } from "../../core/projects/model/Ids.js";

/** The workspace repository. */
export interface WorkspacesRepository {
  readonly insertWorkspace: (workspace: Workspace) => Effect.Effect<void>;
  /**
   * The workspace, or null. With `lock` the row stays locked until the transaction ends against
   * other locking reads (Postgres FOR NO KEY UPDATE, which rows referencing the workspace do not
   * wait for; SQLite's single writer already serializes): the lock every change of the
   * workspace's owners takes first, so "at least one owner" is decided on committed owners.
   */
  readonly findWorkspace: (id: string, options?: { readonly lock?: boolean }) => Effect.Effect<Workspace | null>;
  /** Adds the member or changes its role; answers which of the two happened. */
  readonly upsertMember: (member: WorkspaceMember) => Effect.Effect<"created" | "updated">;
  /**
   * The membership, or null. With `forUpdate` the row stays locked until the transaction ends
   * (Postgres FOR UPDATE; SQLite's single writer already serializes), so a concurrent role
   * change waits for the decision taken on it.
   */
  readonly findMember: (workspaceId: string, userId: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<WorkspaceMember | null>;
  /** Removes the membership; false when there was none. */
  readonly removeMember: (workspaceId: string, userId: string) => Effect.Effect<boolean>;
  readonly countOwners: (workspaceId: string) => Effect.Effect<number>;
  /** Ids of the workspaces where `userId` holds `role`. */
  readonly workspaceIdsWithRole: (userId: string, role: WorkspaceRole) => Effect.Effect<ReadonlyArray<WorkspaceId>>;
}
export const WorkspacesRepository = Context.GenericTag<WorkspacesRepository>("domainkit/projects/WorkspacesRepository");
