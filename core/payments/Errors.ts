/**
 * Typed errors of the payment module (docs/conventions.md, Errors), each with a stable `code`
 * and a `category` the one HTTP error mapper turns into a status. Details never carry tokens,
 * keys, signatures or secrets. This file imports only `effect` and the kernel, so ports may
 * name these errors in their signatures without a cycle.
 */
import { DomainError } from "../kernel/Errors.js";

/** The intent's status has no edge for this trigger (409 payment_intent_unexpected_state). */
export class IllegalTransition extends DomainError("IllegalTransition", "payment_intent_unexpected_state", "conflict")<{
  readonly from: string;
  readonly trigger: string;
}> {}

/** Confirm needs a payment method token and none was given or attached (422). */
export class PaymentMethodRequired extends DomainError("PaymentMethodRequired", "payment_method_required", "unprocessable") {}

/** A capture asked for more than the authorization holds (422 amount_too_large). */
export class AmountTooLarge extends DomainError("AmountTooLarge", "amount_too_large", "unprocessable")<{ readonly maximumMinor: number }> {
  get problemExtensions(): Record<string, unknown> {
    return { maximum_minor: this.maximumMinor };
  }
}

/** A refund would take the refunded total above the captured amount (422). */
export class RefundExceedsCaptured extends DomainError("RefundExceedsCaptured", "refund_exceeds_captured", "unprocessable")<{
  readonly refundableMinor: number;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { refundable_minor: this.refundableMinor };
  }
}

export * from "./model/ProviderErrors.js";

/** The exception was resolved already; a resolution is never edited (409). */
export class ExceptionAlreadyResolved extends DomainError("ExceptionAlreadyResolved", "reconciliation_exception_resolved", "conflict") {}

/** The ledger transaction to reverse is not the merchant's, or does not exist (422). */
export class ReversalTargetInvalid extends DomainError("ReversalTargetInvalid", "reversal_target_invalid", "unprocessable") {}

/** A settlement file that is not the provider's CSV format, or a day that is not YYYY-MM-DD (422). */
export class SettlementFileInvalid extends DomainError("SettlementFileInvalid", "settlement_file_invalid", "unprocessable") {}
