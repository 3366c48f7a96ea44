/**
 * `GET/POST /v1/nodes/:id/permissions`, `DELETE /v1/nodes/:id/permissions/:user_id`: a node's
 * owner grants roles to current workspace members and revokes them. A revocation, and a grant
 * that lowers a member's role, bumps the drive's ACL epoch (spec, Authentication 5: caches and
 * tokens carry it; node metadata ETags do, NodeMetadata.ts) and is visible in the next request,
 * because every check reads grants and membership afresh. A grant to a member who could not see
 * the node before (no grant on it or an ancestor) tells their feed that it entered their view
 * (EnteredView.ts); a revocation that leaves them none above it, that it left (LeftView.ts). A
 * revocation that takes a root node from the member who holds its name hands the name on first
 * (RootNameHandover.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { NotFound, ValidationFailed, type Forbidden, type InvalidCursor } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { hasRole, requireAccess, requireMember } from "./Access.js";
import { recordEnteredView } from "./EnteredView.js";
import { granteesOn, recordLeftView } from "./LeftView.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { handOverRootNames } from "./RootNameHandover.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import type { AclEntry, NodeRole } from "./model/AclEntry.js";
import { NodeId, WorkspaceId } from "./model/Ids.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Fails ValidationFailed unless `granteeId` is a current member (`held`: under the drive lock, as requireMember). */
const requireGranteeMember = (workspaceId: string, granteeId: string, held: boolean) =>
  requireMember(workspaceId, granteeId, held).pipe(
    Effect.mapError(() => new ValidationFailed({ errors: [{ path: "user_id", message: "is not a member of the workspace" }] })),
    Effect.asVoid,
  );

/** Grants `role` on a node to a member. */
export const grantAccess = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly granteeId: string;
  readonly role: NodeRole;
}): Effect.Effect<AclEntry, NotFound | Forbidden | ValidationFailed, FilesServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    yield* requireGranteeMember(input.workspaceId, input.granteeId, false);
    const entry: AclEntry = {
      workspaceId: WorkspaceId.make(input.workspaceId),
      nodeId: NodeId.make(input.nodeId),
      userId: input.granteeId,
      role: input.role,
      grantedBy: input.userId,
      createdAt: yield* now,
    };
    const nodes = yield* NodesRepository;
    const drives = yield* DriveRepository;
    const maxDepth = (yield* FilesSettings).maxDepth;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The drive lock first, so two grants racing on one member cannot both read the role
        // before the other's write: a downgrade is always seen as one, and bumps the epoch; and
        // two grants racing to bring the node into one member's view write one entered-view change.
        // The granter's own access is checked again under it (a revocation committed meanwhile).
        yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "manage");
        // The grantee's membership too, held: a removal committed meanwhile refuses the grant.
        yield* requireGranteeMember(input.workspaceId, input.granteeId, true);
        const previous = (yield* nodes.grantsOfNode(input.workspaceId, input.nodeId)).find((g) => g.userId === input.granteeId);
        const sawIt =
          previous !== undefined ||
          (yield* granteesOn(input.workspaceId, (yield* nodes.ancestors(input.workspaceId, input.nodeId, maxDepth)).map((a) => a.id))).has(input.granteeId);
        yield* nodes.putGrant(entry);
        if (previous !== undefined && !hasRole(input.role, previous.role)) yield* drives.bumpAclEpoch(input.workspaceId);
        if (!sawIt) yield* recordEnteredView({ workspaceId: entry.workspaceId, nodeId: entry.nodeId, userIds: [input.granteeId], actorId: input.userId });
      }),
    );
    return entry;
  }).pipe(withSpan("files.grantAccess"));

/** Revokes a member's direct grant on a node; answers false when there was none. */
export const revokeAccess = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly granteeId: string;
}): Effect.Effect<boolean, NotFound | Forbidden, FilesServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    const nodes = yield* NodesRepository;
    const drives = yield* DriveRepository;
    const maxDepth = (yield* FilesSettings).maxDepth;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The drive lock first, as grants and namespace changes take it (one lock order, no
        // deadlock); the revoker's own access is checked again under it.
        yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "manage");
        if ((yield* nodes.grantsOn(input.workspaceId, input.granteeId, [input.nodeId])).length === 0) return false;
        const ancestors = yield* nodes.ancestors(input.workspaceId, input.nodeId, maxDepth);
        // A root name the grantee would no longer see passes on first (RootNameHandover.ts).
        yield* handOverRootNames({ workspaceId: input.workspaceId, nodeId: input.nodeId, userId: input.granteeId, ancestors });
        yield* nodes.removeGrant(input.workspaceId, input.nodeId, input.granteeId);
        yield* drives.bumpAclEpoch(input.workspaceId);
        // Without a grant above it the node (and its subtree) leaves the grantee's view: their feed says so.
        const above = yield* granteesOn(input.workspaceId, ancestors.map((a) => a.id));
        if (!above.has(input.granteeId)) {
          yield* recordLeftView({ workspaceId: WorkspaceId.make(input.workspaceId), nodeId: NodeId.make(input.nodeId), userIds: [input.granteeId], actorId: input.userId });
        }
        return true;
      }),
    );
  }).pipe(withSpan("files.revokeAccess"));

/** One page of the direct grants on a node, by user id (keyset), for its owners. */
export const listPermissions = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<AclEntry>, NotFound | Forbidden | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    const after = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* NodesRepository).grantsPage(input.workspaceId, input.nodeId, after, input.limit + 1);
    return pageFrom(rows, input.limit, (grant) => [grant.userId]);
  }).pipe(withSpan("files.listPermissions"));
