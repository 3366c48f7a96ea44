/**
 * Storage of project share links. The adapter generates each token (32 random bytes,
 * base64url) and stores only its SHA-256, so the plain token exists once, in `create`'s answer.
 */
import { Context, Effect } from "effect";
import type { ProjectRole } from "../../core/projects/model/Roles.js";
import type { ShareLink } from "../../core/projects/model/ShareLink.js";

/** The share link repository. Every call joins the open transaction. */
export interface ShareLinksRepository {
  /** Stores a new, unrevoked link with a fresh token; answers the plain token (never stored). */
  readonly create: (link: ShareLink) => Effect.Effect<string>;
  readonly find: (id: string) => Effect.Effect<ShareLink | null>;
  /** The link whose token hash equals the given token's (compared in constant time), or null. */
  readonly findByToken: (token: string) => Effect.Effect<ShareLink | null>;
  /** A project's links, newest first (by id), at most `limit`; only those older than `beforeId` when given. */
  readonly listForProject: (projectId: string, limit: number, beforeId?: string) => Effect.Effect<ReadonlyArray<ShareLink>>;
  /** Revokes the link (by `revokedBy`, for `reason`) if it is not revoked yet; false when it already was (or is unknown). */
  readonly revoke: (id: string, at: Date, reason: string, revokedBy: string) => Effect.Effect<boolean>;
  /**
   * Revokes every unrevoked link `userId` created in the workspace (only in `projectIds` when
   * given; never in a project where `userId` holds a project
   * membership of one of `exceptProjectRoles`, checked inside the statement so nothing binds one
   * parameter per membership) in one conditional UPDATE; answers how many.
   */
  readonly revokeCreatedBy: (req: {
    readonly workspaceId: string;
    readonly projectIds?: ReadonlyArray<string> | undefined;
    readonly exceptProjectRoles?: ReadonlyArray<ProjectRole> | undefined;
    readonly userId: string;
    readonly at: Date;
    readonly reason: string;
    /** The actor of the change that revokes them. */
    readonly revokedBy: string;
  }) => Effect.Effect<number>;
}
export const ShareLinksRepository = Context.GenericTag<ShareLinksRepository>("domainkit/projects/ShareLinksRepository");
