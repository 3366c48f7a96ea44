/**
 * Appends one change record: the sequence number comes from the drive's counter, whose row stays
 * locked until the transaction ends, so change records commit in sequence order and a sync
 * reader never sees seq n+1 before seq n. A DriveChanged event goes to the outbox with it, so
 * the sync clients of those who can see the change (`drive:<workspace id>:<user id>`,
 * ChannelAccess.ts) learn that the log grew. Call inside the
 * command's transaction.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Ids } from "../../ports/Ids.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { DriveChanged } from "./Events.js";
import type { ChangeType } from "./model/Change.js";
import type { FileVersionId, NodeId, WorkspaceId } from "./model/Ids.js";

/** Records a change and answers its sequence number. */
export const recordChange = (input: {
  readonly workspaceId: WorkspaceId;
  readonly nodeId: NodeId;
  readonly type: ChangeType;
  readonly versionId: FileVersionId | null;
  readonly actorId: string;
  /** The one user the change is addressed to (`node.left_view`, `node.entered_view`); omitted: everyone who sees the node. */
  readonly recipientId?: string;
}): Effect.Effect<number, never, DriveRepository | ChangesRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    const seq = yield* (yield* DriveRepository).nextChangeSeq(input.workspaceId);
    const change = { workspaceId: input.workspaceId, nodeId: input.nodeId, type: input.type, versionId: input.versionId, actorId: input.actorId, seq, createdAt: yield* now };
    yield* (yield* ChangesRepository).append(change, input.recipientId);
    const event = yield* DriveChanged.make({ tenant_id: input.workspaceId, aggregate_id: input.workspaceId, aggregate_version: seq, actor_id: input.actorId, data: { seq } });
    yield* (yield* Outbox).append([event]);
    return seq;
  });
