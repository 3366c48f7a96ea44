/**
 * Realtime access for file storage: each member follows their own drive channel,
 * `drive:<workspace id>:<user id>` (that user only, while a current member of the workspace, asked
 * afresh on every check, as HTTP does), and is told there of the changes they can see, as
 * `GET /v1/changes` filters them: a DriveChanged (the workspace's change log grew) goes to the
 * channel of each reader of the change's node (ChangesRepository.readersOf, one walk of its
 * ancestors) who is still a member (WorkspaceDirectory.membersAmong, one read), read in the
 * realtime consumer's transaction. The announcement names only the new
 * sequence number; a sync client then reads `GET /v1/changes`. The workspace-wide
 * `drive:<workspace id>` is refused (not_found, as any channel the caller may not follow).
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { requireMember } from "./Access.js";
import { DriveChanged } from "./Events.js";

/** The channel kind of a drive. */
export const driveChannelKind = "drive";

/** The inbox name of the consumer that announces drive changes to their readers. */
export const driveChannelsConsumerName = "files.realtime";

/** The drive channel of one reader of a workspace: `drive:<workspace id>:<user id>`. */
export const driveChannel = (workspaceId: string, userId: string): string => `${driveChannelKind}:${workspaceId}:${userId}`;

/** The workspace and the user of a drive channel's id (`<workspace id>:<user id>`), or null. */
const readerOf = (channelId: string): { readonly workspaceId: string; readonly userId: string } | null => {
  const colon = channelId.indexOf(":");
  return colon <= 0 || colon === channelId.length - 1 ? null : { workspaceId: channelId.slice(0, colon), userId: channelId.slice(colon + 1) };
};

/** True when the channel is the principal's own and they are a current member of its workspace (fails closed on any error). */
export const maySubscribeToDrive = (principal: Principal, channelId: string): Effect.Effect<boolean, never, WorkspaceDirectory> => {
  const reader = readerOf(channelId);
  return principal.kind !== "user" || reader === null || reader.userId !== principal.userId
    ? Effect.succeed(false)
    : requireMember(reader.workspaceId, principal.userId).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );
};

/** Whether the event is a drive's announcement (routed by {@link driveChannelsFor}). */
export const isDriveChanged = (event: EventEnvelope): boolean => event.type === DriveChanged.type;

const seqOf = Schema.decodeUnknownOption(DriveChanged.data);

/**
 * The drive channels of a DriveChanged: one per user the change's node is shown to who is still a
 * member of the workspace (a removed member keeps their grant rows, and may not subscribe); none
 * for other events.
 */
export const driveChannelsFor = (event: EventEnvelope): Effect.Effect<ReadonlyArray<string>, never, ChangesRepository | WorkspaceDirectory> =>
  Effect.gen(function* () {
    const data = isDriveChanged(event) ? Option.getOrNull(seqOf(event.data)) : null;
    if (data === null) return [];
    const readers = yield* (yield* ChangesRepository).readersOf(event.tenant_id, data.seq);
    if (readers.length === 0) return [];
    const members = yield* (yield* WorkspaceDirectory).membersAmong(event.tenant_id, readers);
    return members.map((userId) => driveChannel(event.tenant_id, userId));
  });
