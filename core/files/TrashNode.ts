/**
 * `DELETE /v1/nodes/:id`: an editor trashes a node with its active subtree (soft delete). One
 * transaction marks the subtree, appends the tombstone change record and NodeDeleted; the
 * object purge follows retention and legal hold later. An expected version (If-Match, optional)
 * is checked first, so a stale one answers 412 with the current node even for a node already in
 * the trash; the subtree update is conditional on the version read.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Forbidden, NotFound, VersionMismatch } from "../kernel/Errors.js";
import { staleWrite, versionMismatch } from "../kernel/Versioning.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { authorize, resolveAccess } from "./Access.js";
import { recordChange } from "./ChangeLog.js";
import { RootImmutable, type IllegalTransition } from "./Errors.js";
import { NodeDeleted } from "./Events.js";
import { nextNodeState, nodeState } from "./NodeState.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Trashes a node and its subtree; answers how many nodes went to the trash. */
export const trashNode = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  /** The node version the caller saw (If-Match); a stale one answers 412. Without it the trash is unconditional. */
  readonly expectedVersion?: number | undefined;
}): Effect.Effect<number, NotFound | Forbidden | RootImmutable | IllegalTransition | VersionMismatch, FilesServices> =>
  Effect.gen(function* () {
    const access = yield* resolveAccess(input.workspaceId, input.userId, input.nodeId);
    if (access.isRoot) return yield* Effect.fail(new RootImmutable({ detail: "the root folder cannot be trashed" }));
    yield* authorize(access, "edit");
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the lock: a revocation committed since the check above is seen.
        const { node } = yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "edit");
        const nodes = yield* NodesRepository;
        if (input.expectedVersion !== undefined && input.expectedVersion !== node.version) return yield* Effect.fail(versionMismatch(node, input.expectedVersion));
        yield* nextNodeState(nodeState(node), "trash");
        const trashed = yield* nodes.trashSubtree(input.workspaceId, node.id, yield* now, node.version);
        if (trashed.length === 0) {
          return yield* staleWrite("node", Effect.map(nodes.find(input.workspaceId, node.id), (n) => n ?? undefined), input.expectedVersion);
        }
        const seq = yield* recordChange({ workspaceId: node.workspaceId, nodeId: node.id, type: "node.trashed", versionId: null, actorId: input.userId });
        const event = yield* NodeDeleted.make({
          tenant_id: input.workspaceId,
          aggregate_id: node.id,
          aggregate_version: node.version + 1,
          actor_id: input.userId,
          data: { node_id: node.id, parent_id: node.parentId, change_seq: seq, subtree_count: trashed.length },
        });
        yield* (yield* Outbox).append([event]);
        return trashed.length;
      }),
    );
  }).pipe(withSpan("files.trashNode"));
