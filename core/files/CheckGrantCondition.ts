/**
 * Whether a grant file storage issued may still be used (ports/GrantChecks.ts; the host binds
 * `checkGrantCondition` for the issuer "files", hosts/modules/filesModule.ts). Spec,
 * Authentication 4 and 5: a cached authorization decision is trusted only for a very short
 * session epoch; revocation bumps the epoch; share links are revocable.
 *
 * - A member's download (or thumbnail) grant: while the drive's ACL epoch is the one it carries,
 *   the decision stands and only membership is read again (a removed member's grant stops);
 *   once the epoch moved (a revocation or downgrade anywhere in the drive), the member's view of
 *   the node is checked afresh, so a grant survives another member's revocation, not the
 *   holder's own. Refused: 403 grant_revoked.
 * - A share link's grant: the link must still be live (a revocation or expiry ends its grants),
 *   and its creator's authority is checked as above, the node reached through the link afresh.
 * - An upload part grant: it stores bytes only while its session is open and unexpired (one read
 *   of the session row by its key). Refused: 409 upload_not_open.
 *
 * - A download (or thumbnail) grant names its version: once that version is no longer published
 *   (a security operator blocked it) it serves nothing more. Refused: 403 grant_revoked.
 *
 * Moves and trash do not bump the epoch, so a download grant outlives them for its short life.
 */
import { Effect, Either, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { GrantRevoked, NotFound } from "../kernel/Errors.js";
import type { GrantCondition } from "../../ports/GrantChecks.js";
import type { DriveRepository } from "../../ports/files/DriveRepository.js";
import { ShareLinksRepository } from "../../ports/files/ShareLinksRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireAccess } from "./Access.js";
import { UploadNotOpen } from "./Errors.js";
import { currentAclEpoch, FilesClaim } from "./GrantConditions.js";
import type { FilesServices } from "./Services.js";
import { isLiveLink, reachThroughLink } from "./ShareLinks.js";
import { isDownloadable } from "./VersionStatus.js";
import { withSpan } from "../kernel/Span.js";

const revoked = (detail: string): GrantRevoked => new GrantRevoked({ detail });

/**
 * The access `userId` was granted under `epoch` still holds: a member still, and — once the
 * epoch moved — still a viewer of the node (`recheck`).
 */
const accessHolds = <R>(
  workspaceId: string,
  userId: string,
  epoch: number,
  recheck: Effect.Effect<unknown, unknown, R>,
): Effect.Effect<void, GrantRevoked, R | DriveRepository | WorkspaceDirectory> =>
  Effect.gen(function* () {
    const lost = () => revoked("access to this file was lost since the grant was issued; request a new download");
    if ((yield* currentAclEpoch(workspaceId)) === epoch) {
      const standing = yield* (yield* WorkspaceDirectory).standing(workspaceId, userId);
      if (standing === null) return yield* Effect.fail(lost());
      return;
    }
    yield* recheck.pipe(Effect.mapError(lost), Effect.asVoid);
  });

/**
 * The version a download grant serves is still published: one a security operator blocked after
 * the grant was issued (or blocked with the object it shares) serves nothing more (spec: a
 * quarantined version is never downloadable). A grant issued before grants named their version
 * (`undefined`) is not checked; it lives at most one download lifetime.
 */
const stillPublished = (workspaceId: string, versionId: string | undefined): Effect.Effect<void, GrantRevoked, VersionsRepository> =>
  Effect.gen(function* () {
    if (versionId === undefined) return;
    const version = yield* (yield* VersionsRepository).find(workspaceId, versionId);
    if (version === null || !isDownloadable(version.status)) {
      return yield* Effect.fail(revoked(`the version is ${version?.status ?? "gone"}; it is no longer downloadable`));
    }
  });

/** Succeeds when a grant issued under `claim` may still be used; else the refusal. */
export const checkGrantCondition = (claim: GrantCondition["claim"]): Effect.Effect<void, GrantRevoked | UploadNotOpen | NotFound, FilesServices> =>
  Effect.gen(function* () {
    const decoded = Schema.decodeUnknownEither(FilesClaim)(claim);
    if (Either.isLeft(decoded)) return yield* Effect.fail(revoked("the grant's condition is not one file storage issues"));
    const c = decoded.right;
    switch (c.kind) {
      case "download":
        yield* stillPublished(c.workspace, c.version);
        return yield* accessHolds(c.workspace, c.user, c.epoch, requireAccess(c.workspace, c.user, c.node, "view"));
      case "share": {
        const link = yield* (yield* ShareLinksRepository).find(c.workspace, c.link);
        if (link === null || !isLiveLink(link, yield* now)) return yield* Effect.fail(revoked("the share link was revoked or has expired"));
        yield* stillPublished(c.workspace, c.version);
        return yield* accessHolds(c.workspace, link.createdBy, c.epoch, reachThroughLink(link, c.node));
      }
      case "upload": {
        const session = yield* (yield* UploadsRepository).find(c.workspace, c.session);
        if (session === null) return yield* Effect.fail(new NotFound({ resource: "upload" }));
        const status = session.status === "open" && (yield* now).getTime() >= session.expiresAt.getTime() ? "expired" : session.status;
        if (status !== "open") return yield* Effect.fail(new UploadNotOpen({ status, detail: `the upload is ${status}; its grants store nothing` }));
        return;
      }
    }
  }).pipe(withSpan("files.checkGrantCondition"));
