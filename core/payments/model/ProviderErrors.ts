/**
 * The payment provider's failures that port signatures name (PaymentProvider, ProviderEvents,
 * ReconciliationSettings): a model file, importing only the kernel, so ports use them without a
 * cycle. `core/payments/Errors.ts` re-exports them with the module's other errors.
 */
import { DomainError } from "../../kernel/Errors.js";

/**
 * The provider did not answer in time, or its answer was lost: whether it acted is unknown.
 * The caller keeps the operation pending and never guesses (503 provider_outcome_unknown).
 */
export class ProviderOutcomeUnknown extends DomainError("ProviderOutcomeUnknown", "provider_outcome_unknown", "unavailable")<{
  readonly operation: string;
}> {
  readonly retryAfterSeconds = 1;
}

/** The provider refused a capture, void or refund it could not perform (409 provider_rejected). */
export class ProviderRejected extends DomainError("ProviderRejected", "provider_rejected", "conflict")<{
  readonly operation: string;
  readonly reason: string;
}> {}

/** No valid `v1` signature over the raw body under any current secret (400). */
export class WebhookSignatureInvalid extends DomainError("WebhookSignatureInvalid", "webhook_signature_invalid", "bad_request") {}

/** The signed timestamp is further than the tolerance from now, in either direction (400). */
export class WebhookTimestampOutOfTolerance extends DomainError(
  "WebhookTimestampOutOfTolerance",
  "webhook_timestamp_out_of_tolerance",
  "bad_request",
) {}

/** The signed payload is not an event of the provider's format (400). */
export class WebhookPayloadInvalid extends DomainError("WebhookPayloadInvalid", "webhook_payload_invalid", "bad_request") {}

/** Any reason a provider webhook delivery is refused (400, nothing stored). */
export type WebhookRejected = WebhookSignatureInvalid | WebhookTimestampOutOfTolerance | WebhookPayloadInvalid;

