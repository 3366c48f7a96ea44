/** A read-only project share link as stored (the token itself is never part of it). */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectId, ShareLinkId, WorkspaceId } from "./Ids.js";

/** A share link as stored. */
export const ShareLink = Schema.Struct({
  id: ShareLinkId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf),
  revokedReason: Schema.NullOr(Schema.String),
  /** Who revoked it: the revoking user, or the actor of the membership change that did (null on links revoked before 0009). */
  revokedBy: Schema.NullOr(Schema.String),
});
export type ShareLink = typeof ShareLink.Type;

/** A share link as its project's admins see it (never the token). */
export const ShareLinkView = wireShape(Schema.Struct(Struct.omit(ShareLink.fields, "workspaceId")));

/** A new link with its token: the only time the token is shown. */
export const CreatedShareLink = Schema.Struct({ ...Struct.pick(ShareLink.fields, "id", "expiresAt"), token: Schema.String });
export type CreatedShareLink = typeof CreatedShareLink.Type;

/** Wire shape of a new link with its token. */
export const CreatedShareLinkView = wireShape(CreatedShareLink);
