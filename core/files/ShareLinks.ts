/**
 * File share links (spec: "Capability for one node. Token is high-entropy, stored only as a hash,
 * expiring, revocable"). A node's owner creates, lists (never tokens) and revokes links. Every
 * link expires: without `expires_at` after FilesSettings.shareLinkDefaultTtlMs (30 days), and
 * never later than shareLinkMaxTtlMs (365 days) after its creation. A
 * recipient holding a live token reaches exactly the shared node and, for a folder, its active
 * subtree — nothing else: a node outside it, a trashed node, or a revoked, expired or unknown
 * token is NotFound, and so is a link whose creator is no longer a member who can see the shared
 * node. A download through a link needs `allowDownload` and a published version.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed, type InvalidCursor } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { ShareLinksRepository } from "../../ports/files/ShareLinksRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireAccess } from "./Access.js";
import { NotAFile, VersionQuarantined } from "./Errors.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { currentAclEpoch, shareDownloadCondition } from "./GrantConditions.js";
import { servedContentType } from "./TypeDetection.js";
import { ShareLinkId, WorkspaceId, NodeId } from "./model/Ids.js";
import type { Node } from "./model/Node.js";
import type { ShareLink } from "./model/ShareLink.js";
import type { DownloadGrant } from "./RequestDownload.js";
import type { FilesServices } from "./Services.js";
import { isDownloadable } from "./VersionStatus.js";
import { withSpan } from "../kernel/Span.js";

/** Services of the share link use cases. */
export type ShareServices = FilesServices;

const linkNotFound = () => new NotFound({ resource: "share_link" });

/** Creates a link to a node (its owner); answers the link and its token, shown once. */
export const createShareLink = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly expiresAt: Date | null;
  readonly allowDownload: boolean;
}): Effect.Effect<{ readonly link: ShareLink; readonly token: string }, NotFound | Forbidden | ValidationFailed, ShareServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    const at = yield* now;
    if (input.expiresAt !== null && input.expiresAt.getTime() <= at.getTime()) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "expires_at", message: "must be in the future" }] }));
    }
    // Every link expires (spec: "expiring"): the default lifetime when none is asked, never past the maximum.
    const settings = yield* FilesSettings;
    if (input.expiresAt !== null && input.expiresAt.getTime() > at.getTime() + settings.shareLinkMaxTtlMs) {
      const days = Math.floor(settings.shareLinkMaxTtlMs / (24 * 3600 * 1000));
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "expires_at", message: `must be at most ${days} days ahead` }] }));
    }
    const expiresAt = input.expiresAt ?? new Date(at.getTime() + settings.shareLinkDefaultTtlMs);
    const id = ShareLinkId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The owner's access again under the drive lock: a revocation or demotion committed since the check above is seen.
        yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "manage");
        return yield* (yield* ShareLinksRepository).create({
          id,
          workspaceId: WorkspaceId.make(input.workspaceId),
          nodeId: NodeId.make(input.nodeId),
          allowDownload: input.allowDownload,
          createdBy: input.userId,
          createdAt: at,
          expiresAt,
          revokedAt: null,
        });
      }),
    );
  }).pipe(withSpan("files.createShareLink"));

/** One page of the links of a node, newest first (keyset on the id), for its owners (never the tokens). */
export const listShareLinks = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<ShareLink>, NotFound | Forbidden | InvalidCursor, ShareServices> =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    const after = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* ShareLinksRepository).pageForNode(input.workspaceId, input.nodeId, after, input.limit + 1);
    return pageFrom(rows, input.limit, (link) => [link.id]);
  }).pipe(withSpan("files.listShareLinks"));

/** Revokes a link (its node's owner); revoking a revoked link again answers as before. */
export const revokeShareLink = (input: { readonly userId: string; readonly workspaceId: string; readonly nodeId: string; readonly linkId: string }) =>
  Effect.gen(function* () {
    yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "manage");
    const at = yield* now;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The owner's access again under the drive lock, as for a creation.
        yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "manage");
        yield* (yield* ShareLinksRepository).revoke(input.workspaceId, input.nodeId, input.linkId, at);
      }),
    );
  }).pipe(withSpan("files.revokeShareLink"));

/** True while a link is neither revoked nor expired at `at`. */
export const isLiveLink = (link: ShareLink, at: Date): boolean => link.revokedAt === null && (link.expiresAt === null || link.expiresAt.getTime() > at.getTime());

/** The live link of a token; NotFound for a revoked, expired or unknown one. */
const liveLinkOf = (token: string | undefined): Effect.Effect<ShareLink, NotFound, ShareServices> =>
  Effect.gen(function* () {
    if (token === undefined || token.length === 0 || token.length > 128) return yield* Effect.fail(linkNotFound());
    const link = yield* (yield* ShareLinksRepository).findByToken(token);
    if (link === null || !isLiveLink(link, yield* now)) return yield* Effect.fail(linkNotFound());
    return link;
  });

/** The live link of a token and the node it reaches (`nodeId`: the shared node or one in its subtree). */
export const resolveShare = (token: string | undefined, nodeId: string | null): Effect.Effect<{ readonly link: ShareLink; readonly node: Node }, NotFound, ShareServices> =>
  Effect.flatMap(liveLinkOf(token), (link) => reachThroughLink(link, nodeId)).pipe(withSpan("files.resolveShare"));

/**
 * The node a live link reaches (`nodeId`: the shared node or one in its active subtree; the shared
 * node when null), on its creator's authority; NotFound otherwise.
 */
export const reachThroughLink = (link: ShareLink, nodeId: string | null): Effect.Effect<{ readonly link: ShareLink; readonly node: Node }, NotFound, ShareServices> =>
  Effect.gen(function* () {
    // A link acts on its creator's authority: they must still be a member who can see the shared
    // node (spec: ACL checks include ancestors and current tenant membership).
    yield* requireAccess(link.workspaceId, link.createdBy, link.nodeId, "view").pipe(Effect.mapError(linkNotFound));
    const nodes = yield* NodesRepository;
    const node = yield* nodes.find(link.workspaceId, nodeId ?? link.nodeId);
    if (node === null || node.trashedAt !== null) return yield* Effect.fail(new NotFound({ resource: "node" }));
    if (node.id !== link.nodeId) {
      const chain = yield* nodes.ancestors(link.workspaceId, node.id, (yield* FilesSettings).maxDepth);
      // Inside the shared folder's active subtree only.
      const index = chain.findIndex((a) => a.id === link.nodeId);
      if (index === -1 || chain.slice(0, index + 1).some((a) => a.trashedAt !== null)) return yield* Effect.fail(new NotFound({ resource: "node" }));
    }
    return { link, node };
  });

/**
 * A download grant through a link: the link must allow downloads and the version be published.
 * The grant names the link and carries the ACL epoch (GrantConditions.ts): the link's revocation
 * or expiry, or its creator's loss of access, ends it on the local store.
 */
export const shareDownload = (token: string | undefined, nodeId: string | null): Effect.Effect<DownloadGrant, NotFound | Forbidden | NotAFile | VersionQuarantined, ShareServices> =>
  Effect.gen(function* () {
    const live = yield* liveLinkOf(token);
    // The epoch before the creator's access is checked, as for a member's download.
    const epoch = yield* currentAclEpoch(live.workspaceId);
    const { link, node } = yield* reachThroughLink(live, nodeId);
    if (!link.allowDownload) return yield* Effect.fail(new Forbidden({ detail: "this link does not allow downloads" }));
    if (node.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: node.id }));
    const version = node.currentVersionId === null ? null : yield* (yield* VersionsRepository).find(link.workspaceId, node.currentVersionId);
    if (version === null || !isDownloadable(version.status)) {
      return yield* Effect.fail(new VersionQuarantined({ versionId: version?.id ?? "", status: version?.status ?? "quarantined", detail: "no published version" }));
    }
    const grant = yield* (yield* ObjectStore).grantDownload({
      key: version.objectKey,
      // As for a member's download: the declared type only where the detected one agrees.
      contentType: servedContentType(version.contentType, version.detectedContentType),
      filename: node.name,
      ttlMs: (yield* FilesSettings).downloadTtlMs,
      condition: shareDownloadCondition(link, node.id, epoch, version.id),
    });
    return { url: grant.url, expiresAt: grant.expiresAt, version };
  }).pipe(withSpan("files.shareDownload"));
