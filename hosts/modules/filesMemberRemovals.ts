/**
 * Where the file storage module learns that a member left a workspace, when its directory is the
 * project module's workspaces (SqlProjectsWorkspaceDirectory, the reference server's default):
 * the project module's WorkspaceMembershipRevoked, from its outbox. Hosts are the one place that
 * knows both modules; a host binding its own directory passes its own `memberRemovals`.
 */
import { Schema } from "effect";
import type { MemberRemovalOf } from "../../core/files/MemberRemoval.js";
import { WorkspaceMembershipRevoked } from "../../core/projects/Events.js";

// The envelope as stored (data encoded): a shape check, no decoding of every relayed event.
const isWorkspaceMembershipRevoked = Schema.is(Schema.encodedBoundSchema(WorkspaceMembershipRevoked.envelope));

/** A removal from a project workspace, read from its WorkspaceMembershipRevoked. */
export const projectWorkspaceRemovalOf: MemberRemovalOf = (event) => {
  const candidate: unknown = event;
  if (event.type !== WorkspaceMembershipRevoked.type || !isWorkspaceMembershipRevoked(candidate)) return null;
  return { workspaceId: candidate.data.workspace_id, userId: candidate.data.user_id, actorId: candidate.actor_id ?? "system:workspace-directory" };
};
