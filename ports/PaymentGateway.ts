/**
 * The payment port other modules call (e-commerce orders, food delivery): authorize an amount
 * for a merchant, capture it (partly), cancel it, refund it (partly) and read its status. Every
 * mutation runs under the caller's idempotency key, so a retry of the same request answers the
 * same result and never pays twice. The effects need no services (R = never): a commerce core
 * depends on this port alone, whether the payment module runs in the same process or behind
 * its HTTP API (adapters/payments/gateway). Amounts are integer minor units (kernel Money).
 */
import { Context, type Effect } from "effect";
import { DomainError } from "../core/kernel/Errors.js";
import type { Money } from "../core/kernel/Money.js";

/**
 * A payment's status, in the names the payment API uses: `requires_capture` = authorized and
 * held, `succeeded` = captured, `processing` = the provider's answer is not known yet,
 * `requires_payment_method` = declined (or never confirmed).
 */
export type GatewayPaymentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "requires_capture"
  | "succeeded"
  | "canceled";

/** A payment as the caller sees it: no tokens, no provider ids. */
export interface GatewayPayment {
  /** The payment intent id; the caller keeps it on its own object (e.g. the order). */
  readonly paymentId: string;
  readonly merchantId: string;
  readonly status: GatewayPaymentStatus;
  readonly amount: Money;
  /** Held by the authorization and not captured yet. */
  readonly capturableMinor: number;
  readonly capturedMinor: number;
  /** Completed refunds only. */
  readonly refundedMinor: number;
}

/** A refund as the caller sees it; `pending` means the provider's answer is still awaited. */
export interface GatewayRefund {
  readonly refundId: string;
  readonly paymentId: string;
  readonly amount: Money;
  readonly status: "pending" | "succeeded" | "failed";
}

/** What every mutation carries: whose money, and the caller's idempotency key (1 to 200 characters). */
export interface GatewayCommand {
  readonly merchantId: string;
  readonly idempotencyKey: string;
}

/** Authorize `amount` with a provider payment-method token for the caller's object `reference` (e.g. `order:<id>`). */
export interface AuthorizeRequest extends GatewayCommand {
  readonly reference: string;
  readonly amount: Money;
  readonly paymentMethod: string;
  /** manual (default): hold the amount until capture; automatic: capture at once. */
  readonly captureMethod?: "manual" | "automatic";
}

/** Capture a held authorization; without `amount`, everything held. */
export interface CaptureRequest extends GatewayCommand {
  readonly paymentId: string;
  readonly amount?: Money;
}

/** Cancel an uncaptured payment (a held authorization is voided). */
export interface CancelRequest extends GatewayCommand {
  readonly paymentId: string;
}

/** Refund part or all of a captured payment. */
export interface RefundRequest extends GatewayCommand {
  readonly paymentId: string;
  readonly amount: Money;
}

/** The provider declined the payment method (`card_declined`); authorize again with another one under a new key. */
export class PaymentDeclined extends DomainError("PaymentDeclined", "card_declined", "unprocessable")<{
  readonly paymentId: string;
  readonly declineCode: string;
}> {}

/**
 * Whether the provider acted is not known (a lost answer, a network error to the payment
 * service). Never guessed: the payment stays `processing` until reconciliation resolves it, so
 * read its status later (`paymentId` when known); retrying under the same key is always safe.
 */
export class PaymentOutcomeAmbiguous extends DomainError("PaymentOutcomeAmbiguous", "payment_outcome_ambiguous", "unavailable")<{
  readonly operation: string;
  readonly paymentId: string | null;
}> {}

/** No such payment for this merchant (another merchant's payment answers the same). */
export class PaymentNotFound extends DomainError("PaymentNotFound", "payment_not_found", "not_found")<{ readonly paymentId: string }> {}

/** The amount's currency is not the payment's. */
export class PaymentCurrencyMismatch extends DomainError("PaymentCurrencyMismatch", "currency_mismatch", "unprocessable") {}

/** A capture asked for more than the authorization holds. */
export class CaptureExceedsAuthorized extends DomainError("CaptureExceedsAuthorized", "amount_too_large", "unprocessable")<{ readonly maximumMinor: number | null }> {}

/** A refund would take the refunded total above the captured amount. */
export class RefundExceedsCapturedAmount extends DomainError("RefundExceedsCapturedAmount", "refund_exceeds_captured", "unprocessable")<{ readonly refundableMinor: number | null }> {}

/** The payment's state does not allow this (e.g. capture of a canceled payment), or the same key is still running. */
export class PaymentStateConflict extends DomainError("PaymentStateConflict", "payment_state_conflict", "conflict")<{ readonly reason: string }> {}

/** The request is invalid (amount, token, key too long, or the key reused for a different request). */
export class PaymentRequestInvalid extends DomainError("PaymentRequestInvalid", "payment_request_invalid", "unprocessable")<{ readonly reason: string }> {}

/** The gateway may not act for this merchant (unknown merchant, no credential, missing scope). */
export class PaymentGatewayRefused extends DomainError("PaymentGatewayRefused", "payment_gateway_refused", "forbidden") {}

/** Every typed failure of the gateway. */
export type PaymentGatewayError =
  | PaymentDeclined
  | PaymentOutcomeAmbiguous
  | PaymentNotFound
  | PaymentCurrencyMismatch
  | CaptureExceedsAuthorized
  | RefundExceedsCapturedAmount
  | PaymentStateConflict
  | PaymentRequestInvalid
  | PaymentGatewayRefused;

/**
 * The payment port; every effect is self-contained (R = never). Each may fail with any
 * {@link PaymentGatewayError}: over HTTP the service decides, so callers handle the tags they
 * care about (`PaymentDeclined`, `PaymentOutcomeAmbiguous`, ...) and treat the rest as refusals.
 */
export interface PaymentGateway {
  /** Authorizes (and with `automatic`, captures) `amount`; the same key and request answers the same payment. */
  readonly authorize: (request: AuthorizeRequest) => Effect.Effect<GatewayPayment, PaymentGatewayError>;
  /** Captures a held authorization, fully or partly. */
  readonly capture: (request: CaptureRequest) => Effect.Effect<GatewayPayment, PaymentGatewayError>;
  /** Cancels an uncaptured payment, voiding a held authorization. */
  readonly cancel: (request: CancelRequest) => Effect.Effect<GatewayPayment, PaymentGatewayError>;
  /** Refunds a captured payment, fully or partly; a pending refund is not an error. */
  readonly refund: (request: RefundRequest) => Effect.Effect<GatewayRefund, PaymentGatewayError>;
  /**
   * Makes sure an `authorize` under this key and request holds no money, now or later, without
   * charging anything: a held authorization is voided, a declined or unconfirmed payment is
   * cancelled, and a key never used gets a cancelled payment (so a late `authorize` under it
   * fails PaymentStateConflict instead of holding money). Answers the payment as it ends:
   * `canceled`, or `succeeded` when it was already captured (the caller refunds it). While the
   * provider's answer to the authorization is still unknown it fails PaymentOutcomeAmbiguous:
   * release again later. For a caller that may have authorized and then lost track (a crash
   * before it recorded the payment): it needs only the request it sent.
   */
  readonly releaseAuthorization: (request: AuthorizeRequest) => Effect.Effect<GatewayPayment, PaymentGatewayError>;
  /** The payment as it stands now. */
  readonly status: (request: { readonly merchantId: string; readonly paymentId: string }) => Effect.Effect<GatewayPayment, PaymentGatewayError>;
}
export const PaymentGateway = Context.GenericTag<PaymentGateway>("domainkit/PaymentGateway");
