/**
 * The start of every namespace change: take the drive row's lock (docs/decisions.md, File
 * storage: namespace changes of a workspace are serialized), then read the node and the caller's
 * access to it as they are now. Call inside the command's transaction.
 *
 * A command checks the caller's access before its transaction (Access.ts), so a revocation, a
 * demotion or a move may commit in between. Grants, revocations and namespace changes all take
 * this lock first: under it `lockNamespaceWithAccess` (or `requireAccessUnderLock`) checks the
 * caller's access again and answers as the route's own check does — NotFound where the caller no
 * longer sees the node, Forbidden where they see it without the role — so nothing a committed
 * revocation took goes through. The membership read there is held until the commit where the
 * directory can (WorkspaceDirectory.standingHeld): a removal waits for the command. At the root
 * this also keeps files migration 21's rule: the holder a command names sees the node.
 */
import { Effect } from "effect";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import type { NodesRepository } from "../../ports/files/NodesRepository.js";
import type { FilesSettings } from "../../ports/files/FilesSettings.js";
import type { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { authorize, resolveAccess, type NodeAccess, type NodeAction } from "./Access.js";

/** Locks the workspace's namespace and resolves the caller's access to the node as it is now (the node read with it), without authorizing. */
export const lockNamespaceAndResolve = (
  workspaceId: string,
  userId: string,
  nodeId: string,
): Effect.Effect<NodeAccess, NotFound, DriveRepository | NodesRepository | WorkspaceDirectory | FilesSettings> =>
  Effect.gen(function* () {
    yield* (yield* DriveRepository).lock(workspaceId);
    // The membership held too where the directory can: a removal waits for this commit.
    return yield* resolveAccess(workspaceId, userId, nodeId, true);
  });

/**
 * Under the drive lock (a command that took it itself, or a second node: a move's destination):
 * the caller's access to the node as it is now, membership held, authorized for `action`.
 */
export const requireAccessUnderLock = (
  workspaceId: string,
  userId: string,
  nodeId: string,
  action: NodeAction,
): Effect.Effect<NodeAccess, NotFound | Forbidden, NodesRepository | WorkspaceDirectory | FilesSettings> =>
  Effect.flatMap(resolveAccess(workspaceId, userId, nodeId, true), (access) => authorize(access, action));

/** Locks the workspace's namespace and answers the caller's access to the node as it is now (the node read with it), authorized for `action`. */
export const lockNamespaceWithAccess = (
  workspaceId: string,
  userId: string,
  nodeId: string,
  action: NodeAction,
): Effect.Effect<NodeAccess, NotFound | Forbidden, DriveRepository | NodesRepository | WorkspaceDirectory | FilesSettings> =>
  Effect.flatMap(lockNamespaceAndResolve(workspaceId, userId, nodeId), (access) => authorize(access, action));
