/**
 * Why a provider webhook delivery was rejected (400, nothing stored). The detail never echoes
 * the signature or the secret.
 */
import { Data } from "effect";

/** No valid `v1` signature over the raw body under any current secret (400). */
export class WebhookSignatureInvalid extends Data.TaggedError("WebhookSignatureInvalid")<{ readonly detail?: string }> {
  readonly code = "webhook_signature_invalid";
  readonly category = "bad_request" as const;
}

/** The signed timestamp is further than the tolerance from now, in either direction (400). */
export class WebhookTimestampOutOfTolerance extends Data.TaggedError("WebhookTimestampOutOfTolerance")<{ readonly detail?: string }> {
  readonly code = "webhook_timestamp_out_of_tolerance";
  readonly category = "bad_request" as const;
}

/** The signed payload is not an event of the provider's format (400). */
export class WebhookPayloadInvalid extends Data.TaggedError("WebhookPayloadInvalid")<{ readonly detail?: string }> {
  readonly code = "webhook_payload_invalid";
  readonly category = "bad_request" as const;
}

/** Any reason a delivery is refused. */
export type WebhookRejected = WebhookSignatureInvalid | WebhookTimestampOutOfTolerance | WebhookPayloadInvalid;
