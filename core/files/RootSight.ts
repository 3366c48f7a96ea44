/**
 * At the drive root a member sees a node only through a grant on it or on the root (RootNames.ts),
 * and a rename or restore of a root node makes its actor the holder of its name. The actor's
 * access is checked before the command's transaction, so a revocation may commit in between: under
 * the drive lock, which revocations take too, the actor of a rename, move or restore of a root node
 * must still see it, or the command answers 404 as if the node were absent (files migration 21
 * refuses a holder who does not see the node).
 */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import type { Node } from "./model/Node.js";

/** Under the drive lock: fails NotFound when `node` is a child of the root that `userId` no longer sees. */
export const requireSightAtRoot = (node: Node, userId: string): Effect.Effect<void, NotFound, NodesRepository> =>
  Effect.gen(function* () {
    // Only a child of the root holds a name (files migration 18), purged stubs aside.
    if (node.rootHolder === null || node.parentId === null) return;
    const grants = yield* (yield* NodesRepository).grantsOn(node.workspaceId, userId, [node.id, node.parentId]);
    if (grants.length === 0) return yield* Effect.fail(new NotFound({ resource: "node" }));
  });
