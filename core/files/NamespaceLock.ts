/**
 * The start of every namespace change: take the drive row's lock (docs/decisions.md, File
 * storage: namespace changes of a workspace are serialized), then read the node as it is now.
 * Call inside the command's transaction.
 */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import type { Node } from "./model/Node.js";

/** Locks the workspace's namespace and answers the node, or NotFound. */
export const lockNamespaceAndRead = (workspaceId: string, nodeId: string): Effect.Effect<Node, NotFound, DriveRepository | NodesRepository> =>
  Effect.gen(function* () {
    yield* (yield* DriveRepository).lock(workspaceId);
    const node = yield* (yield* NodesRepository).find(workspaceId, nodeId);
    return node === null ? yield* Effect.fail(new NotFound({ resource: "node" })) : node;
  });
