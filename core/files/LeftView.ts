/**
 * Telling a user's sync client that a node left their view (spec, Resources: Change is the
 * metadata log "that drives sync"; "a deletion leaves a tombstone"). The feed shows a change to
 * whoever can see its node now, so a node moved out of a user's reach, or whose grant was
 * revoked, would otherwise just fall silent in their feed. Each such user gets one
 * `node.left_view` change addressed to them (`recipientId`); their client drops the node and its
 * subtree as for a trash tombstone. Visibility in the feed is a grant of the user on the node or
 * an ancestor, so who loses view is computed from the grants on the node's ancestor chain. The
 * mirror, a node coming into view, is EnteredView.ts.
 */
import { Effect } from "effect";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { recordChange } from "./ChangeLog.js";
import type { NodeId, WorkspaceId } from "./model/Ids.js";

/** The users with a direct grant on any of `nodeIds`. */
export const granteesOn = (workspaceId: string, nodeIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const nodes = yield* NodesRepository;
    const users = new Set<string>();
    for (const nodeId of nodeIds) for (const grant of yield* nodes.grantsOfNode(workspaceId, nodeId)) users.add(grant.userId);
    return users;
  });

/** Appends one `node.left_view` change per user of `userIds` (inside the command's transaction, under the drive lock). */
export const recordLeftView = (input: { readonly workspaceId: WorkspaceId; readonly nodeId: NodeId; readonly userIds: Iterable<string>; readonly actorId: string }) =>
  Effect.gen(function* () {
    for (const recipientId of [...input.userIds].sort()) {
      yield* recordChange({ workspaceId: input.workspaceId, nodeId: input.nodeId, type: "node.left_view", versionId: null, actorId: input.actorId, recipientId });
    }
  });
