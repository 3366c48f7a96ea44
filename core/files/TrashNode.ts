/**
 * `DELETE /v1/nodes/:id`: an editor trashes a node with its active subtree (soft delete). One
 * transaction marks the subtree, appends the tombstone change record and NodeDeleted; the
 * object purge follows retention and legal hold later.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { lockNamespaceAndRead } from "./NamespaceLock.js";
import { authorize, resolveAccess } from "./Access.js";
import { recordChange } from "./ChangeLog.js";
import { RootImmutable, type IllegalTransition } from "./Errors.js";
import { NodeDeleted } from "./Events.js";
import { nextNodeState, nodeState } from "./NodeState.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Trashes a node and its subtree; answers how many nodes went to the trash. */
export const trashNode = (input: { readonly userId: string; readonly workspaceId: string; readonly nodeId: string }): Effect.Effect<number, NotFound | Forbidden | RootImmutable | IllegalTransition, FilesServices> =>
  Effect.gen(function* () {
    const access = yield* resolveAccess(input.workspaceId, input.userId, input.nodeId);
    if (access.isRoot) return yield* Effect.fail(new RootImmutable({ detail: "the root folder cannot be trashed" }));
    yield* authorize(access, "edit");
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const node = yield* lockNamespaceAndRead(input.workspaceId, input.nodeId);
        const nodes = yield* NodesRepository;
        yield* nextNodeState(nodeState(node), "trash");
        const trashed = yield* nodes.trashSubtree(input.workspaceId, node.id, yield* now);
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
