/**
 * A merchant API key as listed and managed (table payment_api_keys): never its secret nor its
 * hash, only a short display prefix (`sk_test_` and the first 4 characters of the secret).
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ApiKeyId, MerchantId } from "./Ids.js";

/** An API key record without its secret hash. */
export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  merchantId: MerchantId,
  /** `sk_test_` and the first 4 characters of the secret, to recognise a key. */
  prefix: Schema.String,
  scopes: Schema.Array(Schema.String),
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  revokedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type ApiKey = typeof ApiKey.Type;

/** A key as its merchant sees it. */
export const ApiKeyView = Schema.Struct({
  id: ApiKey.fields.id,
  object: Schema.Literal("api_key"),
  ...Struct.omit(ApiKey.fields, "id", "merchantId"),
});
export type ApiKeyView = typeof ApiKeyView.Type;
/** The key view on the wire. */
export const ApiKeyWire = wireShape(ApiKeyView);

/** The merchant's view of `key`. */
export const apiKeyView = (key: ApiKey): ApiKeyView => ({ id: key.id, object: "api_key", ...Struct.omit(key, "id", "merchantId") });

/** A freshly issued key: the only answer that carries `api_key` (the secret). */
export const IssuedApiKeyView = Schema.Struct({ ...ApiKeyView.fields, apiKey: Schema.String });
/** The issued key on the wire. */
export const IssuedApiKeyWire = wireShape(IssuedApiKeyView);

/** The answer of a rotation on the wire: the new key (with its secret) and the old one with its new expiry. */
export const RotatedApiKeyWire = Schema.extend(IssuedApiKeyWire, Schema.Struct({ previous: ApiKeyWire }));
