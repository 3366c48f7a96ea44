/**
 * Realtime access for the project module: who may subscribe to `project:<id>` (the same rule
 * as HTTP: current workspace and project membership) and which channels an event goes to.
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess } from "./Access.js";
import {
  AttachmentAdded,
  AttachmentChanged,
  AttachmentScanned,
  CommentAdded,
  CommentEdited,
  TaskChanged,
  TaskCreated,
} from "./Events.js";
import { projectChannel } from "./MembershipEvents.js";
import { ProjectId } from "./model/Ids.js";

/** True when the principal currently sees the project of channel `project:<projectId>` (fails closed on any error). */
export const maySubscribeToProject = (
  principal: Principal,
  channelId: string,
): Effect.Effect<boolean, never, WorkspacesRepository | ProjectsRepository> =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : projectAccess(principal.userId, ProjectId.make(channelId)).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );

// The events of one project's work. Membership events are not broadcast: the channel is read by
// every member, viewers and guests included, and a membership fact is the admins' audit (who, in
// which role, by whom, why). Realtime acts on a membership change through `access_changed`
// (MembershipEvents.ts), which makes the affected user's subscriptions re-check access.
const projectEventTypes = new Set<string>(
  [TaskCreated, TaskChanged, CommentAdded, CommentEdited, AttachmentAdded, AttachmentScanned, AttachmentChanged].map((definition) => definition.type),
);

// Routing reads only the project of an event (the consumers decode the whole of it).
const projectOf = Schema.decodeUnknownOption(Schema.Struct({ project_id: Schema.NullOr(Schema.String) }));

/** The project channel of a task, comment or attachment event; none for other events (membership ones included). */
export const projectChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  if (!projectEventTypes.has(event.type)) return [];
  const projectId = Option.getOrNull(projectOf(event.data))?.project_id ?? null;
  return projectId === null ? [] : [projectChannel(projectId)];
};
