/**
 * Telling a user's sync client that a node entered their view: the mirror of LeftView.ts. The
 * feed shows a change to whoever can see its node now, so a node granted to a user, moved under
 * a grant of theirs, or a whole drive they are invited back to, would show only its later
 * changes: the client, which never held the node or dropped it on a left-view change, would miss
 * what is already there. Each user who could not see the node before gets one `node.entered_view`
 * change addressed to them (`recipientId`), with the node as it is now: their client lists the
 * node and its subtree. Whoever could already see it gets none.
 */
import { Effect } from "effect";
import { recordChange } from "./ChangeLog.js";
import type { NodeId, WorkspaceId } from "./model/Ids.js";

/** Appends one `node.entered_view` change per user of `userIds` (inside the command's transaction, under the drive lock). */
export const recordEnteredView = (input: { readonly workspaceId: WorkspaceId; readonly nodeId: NodeId; readonly userIds: Iterable<string>; readonly actorId: string }) =>
  Effect.gen(function* () {
    for (const recipientId of [...input.userIds].sort()) {
      yield* recordChange({ workspaceId: input.workspaceId, nodeId: input.nodeId, type: "node.entered_view", versionId: null, actorId: input.actorId, recipientId });
    }
  });
