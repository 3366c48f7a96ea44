/**
 * Nodes and their ACL entries. Writes that can lose a race are conditional (`WHERE version =
 * expected`); a name taken among active siblings is answered, never thrown, so the core turns it
 * into 409 name_taken.
 */
import { Context, type Effect } from "effect";
import type { AclEntry } from "../../core/files/model/AclEntry.js";
import type { Node } from "../../core/files/model/Node.js";

/** Whether a write stored the node, or an active sibling (at the root, of the same holder) already has its name. */
export type NodeWrite = "written" | "name_taken" | "stale";

/** Which children a listing returns. */
export type ChildrenFilter =
  /** Every active child. */
  | { readonly kind: "all" }
  /** Only active children on which `userId` holds a direct grant (the caller's role on the parent is not inherited). */
  | { readonly kind: "granted"; readonly userId: string };

export interface NodesRepository {
  /** The workspace a node id belongs to, or null (ids are unique across workspaces). Routes that name only a node start here. */
  readonly workspaceOf: (id: string) => Effect.Effect<string | null>;
  /** The node of the workspace, or null (another workspace's node is null too). */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<Node | null>;
  /** Stores a new node. */
  readonly insert: (node: Node) => Effect.Effect<NodeWrite>;
  /** Stores `node` if the stored version is still `expectedVersion`. */
  readonly update: (node: Node, expectedVersion: number) => Effect.Effect<NodeWrite>;
  /**
   * The active child of `parentId` named `name` whose `rootHolder` is `rootHolder`, or null (below
   * the root every child's holder is null; at the root names are unique per holder).
   */
  readonly findActiveChild: (workspaceId: string, parentId: string, name: string, rootHolder: string | null) => Effect.Effect<Node | null>;
  /**
   * What an access check reads, in one statement on SQL: the node, its ancestors (nearest first,
   * bounded by `maxDepth`, as `ancestors`) and `userId`'s direct grants on any of them; null when
   * the node is not in the workspace.
   */
  readonly findWithAncestorsAndGrants: (
    workspaceId: string,
    id: string,
    userId: string,
    maxDepth: number,
  ) => Effect.Effect<{ readonly node: Node; readonly ancestors: ReadonlyArray<Node>; readonly grants: ReadonlyArray<AclEntry> } | null>;
  /** The ancestors of a node, nearest first, ending at the root (bounded by `maxDepth`). */
  readonly ancestors: (workspaceId: string, id: string, maxDepth: number) => Effect.Effect<ReadonlyArray<Node>>;
  /**
   * How many levels the subtree under `id` reaches below it (0 for a node without children),
   * trashed descendants included (a restore brings them back where they were); counted up to
   * `cap` (answers at most `cap`).
   */
  readonly subtreeHeight: (workspaceId: string, id: string, cap: number) => Effect.Effect<number>;
  /** Up to `limit` direct grants on a node by user id, after user id `afterUserId` when given (keyset). */
  readonly grantsPage: (workspaceId: string, nodeId: string, afterUserId: string | null, limit: number) => Effect.Effect<ReadonlyArray<AclEntry>>;
  /**
   * Trashes the active subtree under and including `rootId`; answers the ids trashed. With
   * `rootVersion`, only if the root is still at that version (none trashed otherwise).
   */
  readonly trashSubtree: (workspaceId: string, rootId: string, at: Date, rootVersion?: number) => Effect.Effect<ReadonlyArray<string>>;
  /**
   * Restores the nodes trashed with `rootId`; answers how many. With `rootVersion`, only if the
   * root is still at that version (none restored otherwise). With `rootHolder`, the restored root
   * gets it as its `rootHolder` (the restorer at the drive root, null below it).
   */
  readonly restoreSubtree: (workspaceId: string, rootId: string, at: Date, rootVersion?: number, rootHolder?: string | null) => Effect.Effect<number>;
  /** One page of active children ordered by name then id, after the `(name, id)` key. */
  readonly children: (req: {
    readonly workspaceId: string;
    readonly parentId: string;
    readonly filter: ChildrenFilter;
    readonly after: readonly [string, string] | null;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Node>>;
  /**
   * One page of the workspace's trash: the nodes trashed as roots (`trashRootId` = their own id),
   * newest trashing first then by id, only those `userId` can see (a direct grant on the node or
   * an ancestor), filtered before `limit`; after the `(trashedAt, id)` key.
   */
  readonly trashRoots: (req: {
    readonly workspaceId: string;
    readonly userId: string;
    readonly after: readonly [Date, string] | null;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Node>>;
  /** The direct grants of `userId` on any of `nodeIds`. */
  readonly grantsOn: (workspaceId: string, userId: string, nodeIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<AclEntry>>;
  /** Grants (or changes) a role. */
  readonly putGrant: (entry: AclEntry) => Effect.Effect<void>;
  /** Removes a grant; false when there was none. */
  readonly removeGrant: (workspaceId: string, nodeId: string, userId: string) => Effect.Effect<boolean>;
  /** The active children of the root `rootId` whose name `userId` holds (RootNames.ts). */
  readonly rootNodesHeldBy: (workspaceId: string, rootId: string, userId: string) => Effect.Effect<ReadonlyArray<Node>>;
  /** The direct grants on a node. */
  readonly grantsOfNode: (workspaceId: string, nodeId: string) => Effect.Effect<ReadonlyArray<AclEntry>>;
}
export const NodesRepository = Context.GenericTag<NodesRepository>("domainkit/files/NodesRepository");
