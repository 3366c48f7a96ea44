/**
 * Typed errors of the payment module, each with a stable `code` and a `category` the one HTTP
 * error mapper turns into a status. Details never carry tokens, keys or secrets.
 */
import { Data } from "effect";

/** The intent's status has no edge for this trigger (409 payment_intent_unexpected_state). */
export class IllegalTransition extends Data.TaggedError("IllegalTransition")<{
  readonly from: string;
  readonly trigger: string;
  readonly detail?: string;
}> {
  readonly code = "payment_intent_unexpected_state";
  readonly category = "conflict" as const;
}

/** Confirm needs a payment method token and none was given or attached (422). */
export class PaymentMethodRequired extends Data.TaggedError("PaymentMethodRequired")<{ readonly detail?: string }> {
  readonly code = "payment_method_required";
  readonly category = "unprocessable" as const;
}

/** A capture asked for more than the authorization holds (422 amount_too_large). */
export class AmountTooLarge extends Data.TaggedError("AmountTooLarge")<{
  readonly maximumMinor: number;
  readonly detail?: string;
}> {
  readonly code = "amount_too_large";
  readonly category = "unprocessable" as const;
  get problemExtensions(): Record<string, unknown> {
    return { maximum_minor: this.maximumMinor };
  }
}

/** A refund would take the refunded total above the captured amount (422). */
export class RefundExceedsCaptured extends Data.TaggedError("RefundExceedsCaptured")<{
  readonly refundableMinor: number;
  readonly detail?: string;
}> {
  readonly code = "refund_exceeds_captured";
  readonly category = "unprocessable" as const;
  get problemExtensions(): Record<string, unknown> {
    return { refundable_minor: this.refundableMinor };
  }
}

/**
 * The provider did not answer in time, or its answer was lost: whether it acted is unknown.
 * The caller keeps the operation pending and never guesses (503 provider_outcome_unknown).
 */
export class ProviderOutcomeUnknown extends Data.TaggedError("ProviderOutcomeUnknown")<{
  readonly operation: string;
  readonly detail?: string;
}> {
  readonly code = "provider_outcome_unknown";
  readonly category = "unavailable" as const;
  readonly retryAfterSeconds = 1;
}

/** The provider refused a capture, void or refund it could not perform (409 provider_rejected). */
export class ProviderRejected extends Data.TaggedError("ProviderRejected")<{
  readonly operation: string;
  readonly reason: string;
  readonly detail?: string;
}> {
  readonly code = "provider_rejected";
  readonly category = "conflict" as const;
}
