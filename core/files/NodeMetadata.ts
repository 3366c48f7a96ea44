/**
 * A node's metadata with the workspace's ACL epoch (spec, Versioning: "Metadata cache keys
 * include tenant, node version and ACL epoch"; Authentication 5: revocation bumps the epoch).
 * `GET /v1/nodes/:id` folds both into its ETag, so a metadata answer cached before a revocation
 * or a downgrade no longer matches. The node id names the tenant (ids are unique across workspaces).
 */
import { Effect } from "effect";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { requireAccess } from "./Access.js";
import type { Node } from "./model/Node.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** A node the caller may view, with the ACL epoch its metadata was authorized under. */
export interface NodeMetadata {
  readonly node: Node;
  readonly aclEpoch: number;
}

/** One node the caller may view, with the workspace's current ACL epoch. */
export const getNodeMetadata = (input: { readonly userId: string; readonly workspaceId: string; readonly nodeId: string }): Effect.Effect<NodeMetadata, NotFound | Forbidden, FilesServices> =>
  Effect.gen(function* () {
    const { node } = yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "view");
    const drive = yield* (yield* DriveRepository).find(input.workspaceId);
    if (drive === null) return yield* Effect.die(new Error(`node ${node.id} has no drive`));
    return { node, aclEpoch: drive.aclEpoch };
  }).pipe(withSpan("files.getNodeMetadata"));

