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
  MembershipGranted,
  MembershipRevoked,
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

// The events of one project; workspace membership events concern no single project channel.
const projectEventTypes = new Set<string>(
  [TaskCreated, TaskChanged, CommentAdded, CommentEdited, AttachmentAdded, AttachmentScanned, AttachmentChanged, MembershipGranted, MembershipRevoked].map(
    (definition) => definition.type,
  ),
);

// Routing reads only the project of an event (the consumers decode the whole of it).
const projectOf = Schema.decodeUnknownOption(Schema.Struct({ project_id: Schema.NullOr(Schema.String) }));

/** The project channel of a task, comment, attachment or membership event; none for other events. */
export const projectChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  if (!projectEventTypes.has(event.type)) return [];
  const projectId = Option.getOrNull(projectOf(event.data))?.project_id ?? null;
  return projectId === null ? [] : [projectChannel(projectId)];
};
