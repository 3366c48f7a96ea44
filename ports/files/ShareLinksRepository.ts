/**
 * File share links. The repository makes the high-entropy token and stores only its SHA-256, so
 * the core never holds a token it could log; `findByToken` compares hashes in constant time.
 */
import { Context, type Effect } from "effect";
import type { ShareLink } from "../../core/files/model/ShareLink.js";

export interface ShareLinksRepository {
  /**
   * Stores a new link with a fresh token; answers the link and the token (shown once). Every link
   * expires: a link without `expiresAt` is refused (a defect; the database refuses it too).
   */
  readonly create: (link: Omit<ShareLink, "tokenHash">) => Effect.Effect<{ readonly link: ShareLink; readonly token: string }>;
  /** The link a token belongs to, or null. */
  readonly findByToken: (token: string) => Effect.Effect<ShareLink | null>;
  /** The link of the workspace with this id (live, revoked or expired), or null. */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<ShareLink | null>;
  /** The links of a node, newest first. */
  readonly listForNode: (workspaceId: string, nodeId: string) => Effect.Effect<ReadonlyArray<ShareLink>>;
  /** Up to `limit` links of a node, newest first (by id), after link id `afterId` when given (keyset). */
  readonly pageForNode: (workspaceId: string, nodeId: string, afterId: string | null, limit: number) => Effect.Effect<ReadonlyArray<ShareLink>>;
  /** Revokes a link of a node; false when there is no such live link. */
  readonly revoke: (workspaceId: string, nodeId: string, id: string, at: Date) => Effect.Effect<boolean>;
}
export const ShareLinksRepository = Context.GenericTag<ShareLinksRepository>("domainkit/files/ShareLinksRepository");
