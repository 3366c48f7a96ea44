/**
 * Where the file storage module learns that a user was added to a workspace (or changed role in
 * it), when its directory is the project module's workspaces (SqlProjectsWorkspaceDirectory, the
 * reference server's default): the project module's WorkspaceMembershipGranted, from its outbox.
 * The mirror of filesMemberRemovals.ts; a host binding its own directory passes its own
 * `memberAdditions`.
 */
import { Schema } from "effect";
import type { MemberAdditionOf } from "../../core/files/MemberAddition.js";
import { WorkspaceMembershipGranted } from "../../core/projects/Events.js";

// The envelope as stored (data encoded): a shape check, no decoding of every relayed event.
const isWorkspaceMembershipGranted = Schema.is(Schema.encodedBoundSchema(WorkspaceMembershipGranted.envelope));

/** An addition to a project workspace, read from its WorkspaceMembershipGranted. */
export const projectWorkspaceAdditionOf: MemberAdditionOf = (event) => {
  const candidate: unknown = event;
  if (event.type !== WorkspaceMembershipGranted.type || !isWorkspaceMembershipGranted(candidate)) return null;
  return { workspaceId: candidate.data.workspace_id, userId: candidate.data.user_id, actorId: candidate.actor_id ?? "system:workspace-directory" };
};
