/**
 * Who may do what to a node (spec: Authentication, roles). Checks resolve the node's ancestors
 * and the caller's current workspace membership (through the WorkspaceDirectory port) on every
 * call. Grants inherit down the tree; the strongest one wins. Every member may list the root and
 * create at the root (the creator becomes the new node's owner), but that implicit standing on
 * the root does not inherit. A caller with no role on a node — another workspace's node included
 * — gets NotFound; 403 only where the caller can already see the node.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { WorkspaceDirectory, type WorkspaceStanding } from "../../ports/files/WorkspaceDirectory.js";
import type { NodeRole } from "./model/AclEntry.js";
import type { Node } from "./model/Node.js";

const rank: Record<NodeRole, number> = { viewer: 1, editor: 2, owner: 3 };

/** The stronger of two roles. */
export const strongerRole = (a: NodeRole | null, b: NodeRole | null): NodeRole | null =>
  a === null ? b : b === null ? a : rank[a] >= rank[b] ? a : b;

/** True when `role` includes `needed`. */
export const hasRole = (role: NodeRole | null, needed: NodeRole): boolean => role !== null && rank[role] >= rank[needed];

/** A caller's resolved access to one node. */
export interface NodeAccess {
  readonly node: Node;
  /** The node's ancestors, nearest first (the root last). */
  readonly ancestors: ReadonlyArray<Node>;
  /** The strongest inherited grant, or null. */
  readonly role: NodeRole | null;
  readonly standing: WorkspaceStanding;
  readonly isRoot: boolean;
}

/**
 * The caller's standing in the workspace, or NotFound (a non-member learns nothing). `held`: read
 * under the drive lock and kept until the transaction ends, where the directory can (NamespaceLock.ts).
 */
export const requireMember = (workspaceId: string, userId: string, held = false): Effect.Effect<WorkspaceStanding, NotFound, WorkspaceDirectory> =>
  Effect.flatMap(WorkspaceDirectory, (d) => (held && d.standingHeld !== undefined ? d.standingHeld : d.standing)(workspaceId, userId)).pipe(
    Effect.flatMap((s) => (s === null ? Effect.fail(new NotFound({ resource: "workspace" })) : Effect.succeed(s))),
  );

/** Fails unless the caller is a workspace admin: NotFound for a non-member, else Forbidden with `detail` (`held`: as for requireMember). */
export const requireWorkspaceAdmin = (workspaceId: string, userId: string, detail: string, held = false): Effect.Effect<void, NotFound | Forbidden, WorkspaceDirectory> =>
  Effect.flatMap(requireMember(workspaceId, userId, held), (standing) => (standing === "admin" ? Effect.void : Effect.fail(new Forbidden({ detail }))));

/** Resolves the caller's access to a node; NotFound when it does not exist in the workspace or the caller is no member (`held`: as for requireMember). */
export const resolveAccess = (
  workspaceId: string,
  userId: string,
  nodeId: string,
  held = false,
): Effect.Effect<NodeAccess, NotFound, NodesRepository | WorkspaceDirectory | FilesSettings> =>
  Effect.gen(function* () {
    const standing = yield* requireMember(workspaceId, userId, held).pipe(Effect.mapError(() => new NotFound({ resource: "node" })));
    // The node, its ancestors and the caller's grants on them: one read (one statement on SQL).
    const found = yield* (yield* NodesRepository).findWithAncestorsAndGrants(workspaceId, nodeId, userId, (yield* FilesSettings).maxDepth);
    if (found === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
    const { node, ancestors, grants } = found;
    const role = grants.reduce<NodeRole | null>((best, g) => strongerRole(best, g.role), null);
    return { node, ancestors, role, standing, isRoot: node.parentId === null };
  });

/** What an action needs. `create` is editor, except at the root where every member may create. */
export type NodeAction = "view" | "edit" | "create_child" | "manage";

const needed: Record<Exclude<NodeAction, "create_child">, NodeRole> = { view: "viewer", edit: "editor", manage: "owner" };

/** Fails unless `access` allows `action`: NotFound when the caller may not even see the node, else Forbidden. */
export const authorize = (access: NodeAccess, action: NodeAction): Effect.Effect<NodeAccess, NotFound | Forbidden> => {
  const visible = access.isRoot || access.role !== null;
  if (!visible) return Effect.fail(new NotFound({ resource: "node" }));
  const allowed =
    action === "create_child" ? access.isRoot || hasRole(access.role, "editor") : action === "view" ? true : hasRole(access.role, needed[action]);
  return allowed ? Effect.succeed(access) : Effect.fail(new Forbidden({ detail: `this needs the ${action === "create_child" ? "editor" : needed[action]} role on the node` }));
};

/** Resolves and authorizes in one step. */
export const requireAccess = (workspaceId: string, userId: string, nodeId: string, action: NodeAction) =>
  Effect.flatMap(resolveAccess(workspaceId, userId, nodeId), (access) => authorize(access, action));
