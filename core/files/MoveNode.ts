/**
 * `PATCH /v1/nodes/:id {name?, parent_id?}` with If-Match (spec: rename or move using the
 * expected version). The caller edits the node and the destination folder. Under the drive's row
 * lock — so namespace changes of one workspace are serialized and crossing moves cannot both pass
 * the cycle check — the expected version must match (428 without, 412 with `current`), the
 * destination must not be the node or one of its descendants (409 move_into_descendant), and the
 * name must be free among the destination's active children (409 name_taken; the partial UNIQUE
 * index is the backstop; at the root, among the caller's own root nodes, and the caller becomes
 * the holder of the name: RootNames.ts), and no node of the moved subtree may end deeper than maxDepth (409
 * tree_too_deep). The conditional update and the change record commit together, with a
 * `node.left_view` change for each user the move takes the node away from (LeftView.ts), and a
 * `node.entered_view` change for each user it brings the node to (EnteredView.ts). A move
 * that takes the node from someone is a loss of access like a revocation: it bumps the drive's
 * ACL epoch, so cached decisions (metadata ETags, download grants) are checked again. A node
 * moved into the root, where only its own grants reach it, gives a mover without a grant on it
 * an owner grant, as a create at the root does: the mover keeps seeing what they moved; a mover
 * whose own grant on it is lower than their role through the old place has it raised to that role.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Forbidden, PreconditionRequired, VersionMismatch } from "../kernel/Errors.js";
import { NotFound } from "../kernel/Errors.js";
import { advanced, expectVersion, versionMismatch } from "../kernel/Versioning.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { lockNamespaceWithAccess, requireAccessUnderLock } from "./NamespaceLock.js";
import { authorize, hasRole, requireAccess, resolveAccess, strongerRole } from "./Access.js";
import { recordChange } from "./ChangeLog.js";
import { requireFreeName } from "./CreateFolder.js";
import { recordEnteredView } from "./EnteredView.js";
import { granteesOn, recordLeftView } from "./LeftView.js";
import {
  ConcurrentMove,
  MoveIntoDescendant,
  NameTaken,
  RootImmutable,
  TreeTooDeep,
  type IllegalTransition,
  type InvalidName,
  type NodeTrashed,
  type NotAFolder,
} from "./Errors.js";
import type { NodeRole } from "./model/AclEntry.js";
import { NodeId } from "./model/Ids.js";
import type { Node } from "./model/Node.js";
import { validName } from "./Names.js";
import { nextNodeState, nodeState } from "./NodeState.js";
import { nameHolderUnder } from "./RootNames.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The errors of a rename or move. */
export type MoveNodeError =
  | NotFound
  | Forbidden
  | PreconditionRequired
  | VersionMismatch
  | NameTaken
  | MoveIntoDescendant
  | ConcurrentMove
  | RootImmutable
  | NotAFolder
  | NodeTrashed
  | InvalidName
  | IllegalTransition
  | TreeTooDeep;

/** Renames and/or moves a node. */
export const moveNode = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly expectedVersion: number | undefined;
  readonly name: string | null;
  readonly parentId: string | null;
}): Effect.Effect<Node, MoveNodeError, FilesServices> =>
  Effect.gen(function* () {
    const resolved = yield* resolveAccess(input.workspaceId, input.userId, input.nodeId);
    if (resolved.isRoot) return yield* Effect.fail(new RootImmutable({ detail: "the root folder cannot be renamed or moved" }));
    const access = yield* authorize(resolved, "edit");
    if (input.expectedVersion === undefined) yield* expectVersion(access.node, undefined);
    const name = input.name === null ? null : yield* validName(input.name);
    const moving = input.parentId !== null && input.parentId !== access.node.parentId;
    if (moving) yield* requireAccess(input.workspaceId, input.userId, input.parentId!, "create_child");
    const maxDepth = (yield* FilesSettings).maxDepth;

    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the lock, the destination too: a revocation committed since the
        // checks above is seen, and at the root the mover, who then holds the name, still sees the
        // node (files migration 21).
        const { node } = yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "edit");
        const destination = moving ? (yield* requireAccessUnderLock(input.workspaceId, input.userId, input.parentId!, "create_child")).node : null;
        const nodes = yield* NodesRepository;
        yield* expectVersion(node, input.expectedVersion);
        yield* nextNodeState(nodeState(node), moving ? "move" : "rename");
        const parentId = moving ? NodeId.make(input.parentId!) : node.parentId!;
        const targetName = name ?? node.name;
        if (!moving && targetName === node.name) return node;
        const parent = destination ?? (yield* nodes.find(input.workspaceId, parentId));
        if (parent === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
        // The users who see the node through a grant above its old place and none above its new
        // one (left), and the reverse (entered); a grant on the node itself is kept by the move.
        let leftView: ReadonlyArray<string> = [];
        let enteredView: ReadonlyArray<string> = [];
        // The grant a move into the root gives the mover on the node, if any.
        let moverGrant: NodeRole | null = null;
        if (moving) {
          // Read under the lock: a move committed just before is already visible here.
          if (parent.id === node.id) return yield* Effect.fail(new MoveIntoDescendant({ nodeId: node.id, parentId, detail: "a node cannot be its own parent" }));
          const chain = yield* nodes.ancestors(input.workspaceId, parent.id, maxDepth);
          if (chain.some((a) => a.id === node.id)) {
            return yield* Effect.fail(new MoveIntoDescendant({ nodeId: node.id, parentId, detail: "a node cannot move into its own descendant" }));
          }
          // No node of the moved subtree may end deeper than maxDepth (TreeDepth.ts): the
          // destination's depth, one for the node, and the levels below it.
          const height = node.kind === "folder" ? yield* nodes.subtreeHeight(input.workspaceId, node.id, maxDepth) : 0;
          if (chain.length + 1 + height > maxDepth) {
            return yield* Effect.fail(new TreeTooDeep({ maxDepth, detail: `the move would put nodes more than ${maxDepth} levels below the root` }));
          }
          const top = chain.length === 0 ? parent : chain[chain.length - 1]!;
          if (top.parentId !== null) {
            return yield* Effect.fail(new ConcurrentMove({ nodeId: node.id, detail: "the destination is not reachable from the root" }));
          }
          const own = yield* granteesOn(input.workspaceId, [node.id]);
          const oldAncestors = (yield* nodes.ancestors(input.workspaceId, node.id, maxDepth)).map((a) => a.id);
          // A node landing at the root is seen there only through its own grants: a mover without
          // one becomes its owner, as the creator of a root node does (CreateFolder.ts insertNode);
          // a mover whose own grant is lower than their role through the old place gets that role.
          if (parent.parentId === null) {
            if (!own.has(input.userId)) {
              moverGrant = "owner";
              own.add(input.userId);
            } else {
              const moversGrants = yield* nodes.grantsOn(input.workspaceId, input.userId, [node.id, ...oldAncestors]);
              const direct = moversGrants.find((g) => g.nodeId === node.id)!.role;
              const through = moversGrants.reduce<NodeRole | null>((best, g) => strongerRole(best, g.role), null)!;
              if (!hasRole(direct, through)) moverGrant = through;
            }
          }
          const before = yield* granteesOn(input.workspaceId, oldAncestors);
          const after = yield* granteesOn(input.workspaceId, [parent.id, ...chain.map((a) => a.id)]);
          leftView = [...before].filter((userId) => !after.has(userId) && !own.has(userId));
          enteredView = [...after].filter((userId) => !before.has(userId) && !own.has(userId));
        }
        yield* requireFreeName(input.workspaceId, parent, targetName, input.userId);
        const updated = advanced({ ...node, parentId, name: targetName, rootHolder: nameHolderUnder(parent, input.userId), updatedAt: yield* now });
        // Before the update: the name's new holder sees the node when it lands (a failed update rolls it back).
        if (moverGrant !== null) {
          yield* nodes.putGrant({ workspaceId: node.workspaceId, nodeId: node.id, userId: input.userId, role: moverGrant, grantedBy: input.userId, createdAt: updated.updatedAt });
        }
        const written = yield* nodes.update(updated, node.version);
        if (written === "name_taken") return yield* Effect.fail(new NameTaken({ name: targetName }));
        if (written === "stale") return yield* Effect.fail(versionMismatch(node, input.expectedVersion));
        yield* recordChange({
          workspaceId: node.workspaceId,
          nodeId: node.id,
          type: moving ? "node.moved" : "node.renamed",
          versionId: null,
          actorId: input.userId,
        });
        // Their feeds no longer show the node's changes: each gets a tombstone addressed to them,
        // and what was decided for them under the old place is decided again (the epoch moves).
        yield* recordLeftView({ workspaceId: node.workspaceId, nodeId: node.id, userIds: leftView, actorId: input.userId });
        if (leftView.length > 0) yield* (yield* DriveRepository).bumpAclEpoch(node.workspaceId);
        // Those who newly see it: the node and its subtree are theirs to list.
        yield* recordEnteredView({ workspaceId: node.workspaceId, nodeId: node.id, userIds: enteredView, actorId: input.userId });
        return updated;
      }),
    );
  }).pipe(withSpan("files.moveNode"));
