/**
 * `POST /v1/nodes {parent_id, name, kind: "folder"}`: an editor of the parent (any member at the
 * root) creates a folder; a name taken among active siblings is 409 name_taken (at the root, among
 * the caller's own root nodes: RootNames.ts). Created at the root, the creator becomes the
 * folder's owner and the holder of its name. A folder deeper than FilesSettings.maxDepth is 409
 * tree_too_deep (TreeDepth.ts). The change record commits with the folder.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { requireAccess } from "./Access.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { recordChange } from "./ChangeLog.js";
import { NameTaken, NodeTrashed, NotAFolder, type InvalidName, type TreeTooDeep } from "./Errors.js";
import { NodeId, WorkspaceId } from "./model/Ids.js";
import { newNode, type Node } from "./model/Node.js";
import { validName } from "./Names.js";
import { nameHolderUnder } from "./RootNames.js";
import { requireRoomBelow } from "./TreeDepth.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/**
 * Checks, under the drive lock, that `parent` is an active folder where `userId` may put a node
 * named `name`: no active child of that name (at the root, none that `userId` holds).
 */
export const requireFreeName = (
  workspaceId: string,
  parent: Node,
  name: string,
  userId: string,
): Effect.Effect<void, NameTaken | NotAFolder | NodeTrashed, NodesRepository> =>
  Effect.gen(function* () {
    if (parent.kind !== "folder") return yield* Effect.fail(new NotAFolder({ nodeId: parent.id }));
    if (parent.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: parent.id }));
    const taken = yield* (yield* NodesRepository).findActiveChild(workspaceId, parent.id, name, nameHolderUnder(parent, userId));
    if (taken !== null) return yield* Effect.fail(new NameTaken({ name, detail: `an active node named ${JSON.stringify(name)} already exists here` }));
  });

/**
 * Stores a new node under the drive lock: insert (at the root, its creator holds its name), owner
 * grant at the root, change record — last, since files migration 22 checks there that the holder
 * of a new root node sees it.
 */
export const insertNode = (node: Node, parentIsRoot: boolean): Effect.Effect<Node, NameTaken, NodesRepository | DriveRepository | ChangesRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    const nodes = yield* NodesRepository;
    const written = yield* nodes.insert(parentIsRoot ? { ...node, rootHolder: node.createdBy } : node);
    if (written !== "written") return yield* Effect.fail(new NameTaken({ name: node.name }));
    if (parentIsRoot) {
      yield* nodes.putGrant({ workspaceId: node.workspaceId, nodeId: node.id, userId: node.createdBy, role: "owner", grantedBy: node.createdBy, createdAt: node.createdAt });
    }
    yield* recordChange({ workspaceId: node.workspaceId, nodeId: node.id, type: "node.created", versionId: null, actorId: node.createdBy });
    return node;
  });

/** Creates a folder. */
export const createFolder = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly parentId: string;
  readonly name: string;
}): Effect.Effect<Node, NotFound | Forbidden | NameTaken | NotAFolder | NodeTrashed | InvalidName | TreeTooDeep, FilesServices> =>
  Effect.gen(function* () {
    const name = yield* validName(input.name);
    yield* requireAccess(input.workspaceId, input.userId, input.parentId, "create_child");
    const id = NodeId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the lock: a revocation committed since the check above is seen.
        const { node: parent } = yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.parentId, "create_child");
        yield* requireFreeName(input.workspaceId, parent, name, input.userId);
        yield* requireRoomBelow(input.workspaceId, parent.id, 0);
        const node = newNode({ id, workspaceId: WorkspaceId.make(input.workspaceId), parentId: parent.id, name, kind: "folder", createdBy: input.userId, createdAt: yield* now });
        return yield* insertNode(node, parent.parentId === null);
      }),
    );
  }).pipe(withSpan("files.createFolder"));
