/**
 * A share link: a capability for one node (and a folder's subtree). Only the SHA-256 of the
 * high-entropy token is stored; links expire and are revocable.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { NodeId, ShareLinkId, WorkspaceId } from "./Ids.js";

/** The share link record. */
export const ShareLink = Schema.Struct({
  id: ShareLinkId,
  workspaceId: WorkspaceId,
  nodeId: NodeId,
  tokenHash: Schema.String,
  allowDownload: Schema.Boolean,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type ShareLink = typeof ShareLink.Type;

/** The link as listed: never the token (nor its hash). */
export const ShareLinkView = Schema.Struct(Struct.omit(ShareLink.fields, "tokenHash", "workspaceId"));
export const ShareLinkWire = wireShape(ShareLinkView);
