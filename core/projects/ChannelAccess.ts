/**
 * Realtime access for the project module: who may subscribe to `project:<id>` (the same rule
 * as HTTP: current workspace and project membership) and which channels an event goes to.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess } from "./Access.js";
import { projectChannel } from "./MembershipEvents.js";

/** True when the principal currently sees the project (fails closed on any error). */
export const maySubscribeToProject = (
  principal: Principal,
  projectId: string,
): Effect.Effect<boolean, never, WorkspacesRepository | ProjectsRepository> =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : projectAccess(principal.userId, projectId).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );

const projectEventTypes = new Set([
  "TaskCreated",
  "TaskChanged",
  "CommentAdded",
  "CommentEdited",
  "AttachmentAdded",
  "AttachmentScanned",
  "AttachmentChanged",
  "MembershipGranted",
  "MembershipRevoked",
]);

/** The project channel of a task, comment, attachment or membership event; none for other events. */
export const projectChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  if (!projectEventTypes.has(event.type)) return [];
  const projectId = (event.data as { project_id?: unknown } | null)?.project_id;
  return typeof projectId === "string" ? [projectChannel(projectId)] : [];
};
