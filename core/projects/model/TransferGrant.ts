/** A short-lived grant to upload or download bytes directly at the object store (ports/ObjectStore.ts). */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

/** Where and how to send the request. */
export const TransferGrant = Schema.Struct({
  url: Schema.String,
  method: Schema.Literal("PUT", "GET"),
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  expiresAt: Schema.DateFromSelf,
});
export type TransferGrant = typeof TransferGrant.Type;

/** Wire shape of a grant. */
export const TransferGrantView = wireShape(TransferGrant);
