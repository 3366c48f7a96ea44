/**
 * Appends one change record: the sequence number comes from the drive's counter, whose row stays
 * locked until the transaction ends, so change records commit in sequence order and a sync
 * reader never sees seq n+1 before seq n. Call inside the command's transaction.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import type { ChangeType } from "./model/Change.js";
import type { FileVersionId, NodeId, WorkspaceId } from "./model/Ids.js";

/** Records a change and answers its sequence number. */
export const recordChange = (input: {
  readonly workspaceId: WorkspaceId;
  readonly nodeId: NodeId;
  readonly type: ChangeType;
  readonly versionId: FileVersionId | null;
  readonly actorId: string;
}): Effect.Effect<number, never, DriveRepository | ChangesRepository> =>
  Effect.gen(function* () {
    const seq = yield* (yield* DriveRepository).nextChangeSeq(input.workspaceId);
    yield* (yield* ChangesRepository).append({ ...input, seq, createdAt: yield* now });
    return seq;
  });
