/** Request params and bodies of the API key routes. */
import { Schema } from "effect";
import { RequestTime } from "../RequestTime.js";
import { ApiKeyId } from "../../../core/payments/model/Ids.js";

/** Path parameter of one key. */
export const ApiKeyIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.compose(ApiKeyId)) });

/** Body of POST /v1/api-keys. */
export const IssueApiKeyBody = Schema.Struct({
  scopes: Schema.Array(Schema.String.pipe(Schema.maxLength(50))).pipe(Schema.maxItems(20)),
  expires_at: Schema.optional(RequestTime),
});

/** Body of POST /v1/api-keys/:id/revoke. */
export const RevokeApiKeyBody = Schema.Struct({ reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))) });

/** Body of POST /v1/api-keys/:id/rotate (default overlap: one day). */
export const RotateApiKeyBody = Schema.Struct({ overlap_seconds: Schema.optional(Schema.Int) });
