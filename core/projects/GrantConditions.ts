/**
 * What project management's object store grants are issued under (ports/GrantChecks.ts), signed
 * into each grant the local store serves and read back by CheckGrantCondition.ts when it is used.
 * Spec: attachments "inherit task access and access is rechecked on the task"; a removed member's
 * "sessions and socket subscriptions are revoked" — a download grant is one more cached decision.
 *
 * - An attachment's download or thumbnail: the attachment and the member it was granted to.
 * - A workspace export: the export and its requester.
 */
import { Schema } from "effect";
import type { GrantCondition } from "../../ports/GrantChecks.js";

/** The issuer name of project management's grant conditions. */
export const projectsGrantIssuer = "projects";

const AttachmentClaim = Schema.Struct({ kind: Schema.Literal("attachment"), attachment: Schema.String, user: Schema.String });
const ExportClaim = Schema.Struct({ kind: Schema.Literal("export"), export: Schema.String, user: Schema.String });
/** Every claim project management signs into a grant, by `kind`. */
export const ProjectsClaim = Schema.Union(AttachmentClaim, ExportClaim);
export type ProjectsClaim = typeof ProjectsClaim.Type;

const condition = (claim: ProjectsClaim): GrantCondition => ({ issuer: projectsGrantIssuer, claim });

/** The condition of `userId`'s download of an attachment (or of its thumbnail). */
export const attachmentCondition = (attachmentId: string, userId: string): GrantCondition => condition({ kind: "attachment", attachment: attachmentId, user: userId });

/** The condition of `userId`'s download of their export. */
export const exportCondition = (exportId: string, userId: string): GrantCondition => condition({ kind: "export", export: exportId, user: userId });
