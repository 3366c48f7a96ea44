/**
 * `POST /v1/nodes/:id/restore`: an editor restores a node trashed by its own trashing, with the
 * subtree trashed together with it, into its parent — 409 name_taken when an active sibling took
 * the name meanwhile, 409 node_trashed when the parent itself is in the trash. An expected version
 * (If-Match, optional) is checked first, so a stale one answers 412 with the current node even
 * for a node already restored; the root's update is conditional on the version read.
 */
import { Effect } from "effect";
import { NotFound, type Forbidden, type VersionMismatch } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { staleWrite, versionMismatch } from "../kernel/Versioning.js";
import { Transactions } from "../../ports/Transactions.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { requireAccess } from "./Access.js";
import { recordChange } from "./ChangeLog.js";
import { requireFreeName } from "./CreateFolder.js";
import { nameHolderUnder } from "./RootNames.js";
import { NodeTrashed, type IllegalTransition, type NameTaken, type NotAFolder } from "./Errors.js";
import type { Node } from "./model/Node.js";
import { nextNodeState, nodeState } from "./NodeState.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Restores a trashed node and its subtree. */
export const restoreNode = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  /** The node version the caller saw (If-Match); a stale one answers 412. Without it the restore is unconditional. */
  readonly expectedVersion?: number | undefined;
}): Effect.Effect<Node, NotFound | Forbidden | NameTaken | NotAFolder | NodeTrashed | IllegalTransition | VersionMismatch, FilesServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "edit");
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the lock: a revocation committed since the check above is seen, and
        // at the root the restorer, who then holds the name, still sees the node (files migration 21).
        const { node } = yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "edit");
        const nodes = yield* NodesRepository;
        if (node.parentId === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
        if (input.expectedVersion !== undefined && input.expectedVersion !== node.version) return yield* Effect.fail(versionMismatch(node, input.expectedVersion));
        yield* nextNodeState(nodeState(node), "restore");
        // Only the node its own trashing marked is restored; a node trashed with an ancestor comes back with that ancestor.
        if (node.trashRootId !== node.id) return yield* Effect.fail(new NodeTrashed({ nodeId: node.id, detail: "restore the trashed folder that contains it" }));
        const parent = yield* nodes.find(input.workspaceId, node.parentId);
        if (parent === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
        // At the root the name must be free among the caller's own root nodes, who then holds it (RootNames.ts).
        yield* requireFreeName(input.workspaceId, parent, node.name, input.userId);
        const at = yield* now;
        const restored = yield* nodes.restoreSubtree(input.workspaceId, node.id, at, node.version, nameHolderUnder(parent, input.userId));
        if (restored === 0) {
          return yield* staleWrite("node", Effect.map(nodes.find(input.workspaceId, node.id), (n) => n ?? undefined), input.expectedVersion);
        }
        yield* recordChange({ workspaceId: node.workspaceId, nodeId: node.id, type: "node.restored", versionId: null, actorId: input.userId });
        return (yield* nodes.find(input.workspaceId, node.id)) ?? node;
      }),
    );
  }).pipe(withSpan("files.restoreNode"));
