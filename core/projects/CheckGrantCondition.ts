/**
 * Whether a grant project management issued may still be used (ports/GrantChecks.ts; the host
 * binds `checkGrantCondition` for the issuer "projects", hosts/modules/projectsModule.ts). Each
 * use asks again what the grant was issued after: an attachment's download or thumbnail, the
 * holder's read access to its task and the attachment still clean (a removed member, a deleted
 * task or attachment end the grant); an export, its requester still a member of its workspace.
 * Refused: 403 grant_revoked.
 */
import { Effect, Either, Schema } from "effect";
import { GrantRevoked } from "../kernel/Errors.js";
import type { GrantCondition } from "../../ports/GrantChecks.js";
import { readableCleanAttachment, type AttachmentServices } from "./Attachments.js";
import { getExport, type ExportServices } from "./Exports.js";
import { ProjectsClaim } from "./GrantConditions.js";
import { AttachmentId, WorkspaceExportId } from "./model/Ids.js";
import { withSpan } from "../kernel/Span.js";

const revoked = () => new GrantRevoked({ detail: "access to this object was lost since the grant was issued; request a new download" });

/** Succeeds when a grant issued under `claim` may still be used; else 403 grant_revoked. */
export const checkGrantCondition = (claim: GrantCondition["claim"]): Effect.Effect<void, GrantRevoked, AttachmentServices | ExportServices> =>
  Effect.gen(function* () {
    const decoded = Schema.decodeUnknownEither(ProjectsClaim)(claim);
    if (Either.isLeft(decoded)) return yield* Effect.fail(new GrantRevoked({ detail: "the grant's condition is not one project management issues" }));
    const c = decoded.right;
    const principal = { kind: "user", userId: c.user } as const;
    switch (c.kind) {
      case "attachment":
        return yield* readableCleanAttachment(principal, AttachmentId.make(c.attachment), "can be downloaded").pipe(Effect.mapError(revoked), Effect.asVoid);
      case "export":
        return yield* getExport(principal, WorkspaceExportId.make(c.export)).pipe(Effect.mapError(revoked), Effect.asVoid);
    }
  }).pipe(withSpan("projects.checkGrantCondition"));
