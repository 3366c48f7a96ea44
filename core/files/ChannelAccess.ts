/**
 * Realtime access for file storage: who may subscribe to `drive:<workspace id>` (a current
 * member of the workspace, asked afresh on every check, as HTTP does) and which events go to it
 * (DriveChanged: the workspace's change log grew). The announcement names only the new
 * sequence number; a sync client then reads `GET /v1/changes`, filtered by its access.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import type { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { requireMember } from "./Access.js";
import { DriveChanged } from "./Events.js";

/** The channel kind of a workspace's drive. */
export const driveChannelKind = "drive";

/** The channel of a workspace's drive. */
export const driveChannel = (workspaceId: string): string => `${driveChannelKind}:${workspaceId}`;

/** True when the principal is a current member of the workspace (fails closed on any error). */
export const maySubscribeToDrive = (principal: Principal, workspaceId: string): Effect.Effect<boolean, never, WorkspaceDirectory> =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : requireMember(workspaceId, principal.userId).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );

/** The drive channel of a DriveChanged event; none for other events. */
export const filesChannelsFor = (event: EventEnvelope): ReadonlyArray<string> =>
  event.type === DriveChanged.type ? [driveChannel(event.tenant_id)] : [];
