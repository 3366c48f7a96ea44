/**
 * A member invited back to the workspace (the mirror of MemberRemoval.ts): their removal's
 * `node.left_view` of the drive's root made their sync client drop its copy of the drive, and
 * the feed alone would show only the later changes. The host's membership source announces an
 * addition (or a role change: sources need not tell them apart) as an event; this consumer
 * (durable, at least once, deduplicated by its inbox) writes one `node.entered_view` change of
 * the drive's root addressed to the user, so their client lists the drive again. Only for a
 * user whose client was told to drop the drive — the last change of the root addressed to them
 * is a left-view one — so a first invitation (the client starts with a full listing anyway), a
 * role change, or a repeated announcement writes nothing.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { recordEnteredView } from "./EnteredView.js";

/** A user added to a workspace (or whose role in it changed), as the host's membership source announces it. */
export interface WorkspaceMemberAdded {
  readonly workspaceId: string;
  readonly userId: string;
  /** Who added them (recorded as the change's actor). */
  readonly actorId: string;
}

/** Reads an addition out of an event of the host's membership source; null for any other event. */
export type MemberAdditionOf = (event: EventEnvelope) => WorkspaceMemberAdded | null;

/** The inbox name of the consumer. */
export const memberAdditionConsumerName = "files.member_addition";

/**
 * Writes the re-invited user's `node.entered_view` change of the drive's root, under the drive
 * lock, in the caller's transaction (the consumer's, with its inbox record). Nothing when the
 * workspace has no drive, when the user is no member (the addition was undone before this ran:
 * their removal's left-view change still stands), or when the root did not leave their view.
 */
export const recordMemberEnteredDrive = (addition: WorkspaceMemberAdded) =>
  Effect.gen(function* () {
    if ((yield* (yield* WorkspaceDirectory).standing(addition.workspaceId, addition.userId)) === null) return;
    const drive = yield* (yield* DriveRepository).lock(addition.workspaceId);
    if (drive === null) return;
    // Read under the lock: the removal's consumer writes the left-view change under it too.
    const last = yield* (yield* ChangesRepository).lastAddressedTo(drive.workspaceId, addition.userId, drive.rootNodeId);
    if (last !== "node.left_view") return;
    yield* recordEnteredView({ workspaceId: drive.workspaceId, nodeId: drive.rootNodeId, userIds: [addition.userId], actorId: addition.actorId });
  });

/** The consumer (shaped as adapters/worker's Consumer) of the additions `additionOf` recognizes. */
export const memberAdditionConsumer = (additionOf: MemberAdditionOf) => ({
  name: memberAdditionConsumerName,
  handles: (event: EventEnvelope): boolean => additionOf(event) !== null,
  handle: (event: EventEnvelope) => {
    const addition = additionOf(event);
    return addition === null ? Effect.void : recordMemberEnteredDrive(addition);
  },
});
