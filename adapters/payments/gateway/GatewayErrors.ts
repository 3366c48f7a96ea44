/**
 * What both payment gateway adapters share: how a failure of the payment service (a core error
 * in process, a problem+json over HTTP) becomes the port's typed error, how the caller's key
 * is checked and derived per step, and the wire view of a payment. One table, so the two
 * adapters cannot disagree on what a code means.
 */
import { randomBytes } from "node:crypto";
import { Effect, Schema } from "effect";
import type { ErrorCategory } from "../../../core/kernel/Errors.js";
import { PaymentIntentWire } from "../../../core/payments/model/PaymentIntent.js";
import { RefundWire } from "../../../core/payments/model/Refund.js";
import {
  CaptureExceedsAuthorized,
  PaymentCurrencyMismatch,
  PaymentDeclined,
  PaymentGatewayRefused,
  PaymentNotFound,
  PaymentOutcomeAmbiguous,
  PaymentRequestInvalid,
  PaymentStateConflict,
  RefundExceedsCapturedAmount,
  type GatewayPayment,
  type GatewayPaymentStatus,
  type GatewayRefund,
  type PaymentGatewayError,
} from "../../../ports/PaymentGateway.js";

/** A failure as the payment service states it: stable code, category, detail and problem extensions. */
export interface ServiceFailure {
  readonly code: string;
  readonly category: ErrorCategory;
  readonly detail?: string | undefined;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The category of an HTTP status, the inverse of the one error mapper's table. */
export const categoryOfStatus = (status: number): ErrorCategory =>
  status >= 500
    ? "unavailable"
    : ({
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        409: "conflict",
        412: "precondition_failed",
        413: "payload_too_large",
        422: "unprocessable",
        428: "precondition_required",
        429: "rate_limited",
      } as Record<number, ErrorCategory>)[status] ?? "bad_request";

const numberOrNull = (value: unknown): number | null => (typeof value === "number" ? value : null);

/** The port's error for a service failure of `operation` on `paymentId` (null before one exists). */
export const gatewayErrorOf = (operation: string, paymentId: string | null, failure: ServiceFailure): PaymentGatewayError => {
  const ext = failure.extensions ?? {};
  const detail = failure.detail === undefined ? {} : { detail: failure.detail };
  switch (failure.code) {
    case "card_declined": {
      const intent = ext.payment_intent as { id?: unknown } | undefined;
      return new PaymentDeclined({
        paymentId: typeof intent?.id === "string" ? intent.id : (paymentId ?? ""),
        declineCode: typeof ext.decline_code === "string" ? ext.decline_code : "card_declined",
        ...detail,
      });
    }
    case "currency_mismatch":
      return new PaymentCurrencyMismatch(detail);
    case "amount_too_large":
      return new CaptureExceedsAuthorized({ maximumMinor: numberOrNull(ext.maximum_minor), ...detail });
    case "refund_exceeds_captured":
      return new RefundExceedsCapturedAmount({ refundableMinor: numberOrNull(ext.refundable_minor), ...detail });
  }
  switch (failure.category) {
    // A lost answer, an overloaded or unreachable service: whether anything happened is unknown.
    case "unavailable":
    case "rate_limited":
      return new PaymentOutcomeAmbiguous({ operation, paymentId, ...detail });
    case "not_found":
      return new PaymentNotFound({ paymentId: paymentId ?? "", ...detail });
    case "forbidden":
    case "unauthorized":
      return new PaymentGatewayRefused(detail);
    case "conflict":
    case "precondition_failed":
    case "precondition_required":
      return new PaymentStateConflict({ reason: failure.code, ...detail });
    default:
      return new PaymentRequestInvalid({ reason: failure.code, ...detail });
  }
};

/** The longest caller key: room is left for the per-step suffix within the kernel's 255. */
export const gatewayKeyMaxLength = 200;

/** Checks the caller's idempotency key (1 to 200 characters). */
export const checkGatewayKey = (key: string): Effect.Effect<string, PaymentRequestInvalid> =>
  key.length >= 1 && key.length <= gatewayKeyMaxLength
    ? Effect.succeed(key)
    : Effect.fail(new PaymentRequestInvalid({ reason: "validation_failed", detail: `idempotencyKey must be 1 to ${gatewayKeyMaxLength} characters` }));

/**
 * The key of one step of a gateway call. Authorize is two steps (create the intent, confirm
 * it), each under its own derived key: a retry after a lost confirm finds the SAME intent and
 * confirms it again under its stable provider reference, instead of creating a second one.
 */
export const stepKey = (key: string, step: "create" | "confirm" | "capture" | "cancel" | "refund"): string => `${key}/${step}`;

/**
 * The key of one attempt to cancel while releasing an authorization: fresh per attempt, because
 * cancelling is idempotent by itself (the void goes under the intent's one void reference) and a
 * stored conflict (a confirm was running) must not be replayed to the next attempt.
 */
export const releaseAttemptKey = (key: string): string => `${key}/release/${randomBytes(6).toString("hex")}`;

/**
 * What releasing an authorization does with a payment in `status`: nothing more (cancelled, or
 * captured: the caller refunds it), wait (the provider's answer is not known), or cancel it.
 */
export const releaseStep = (status: GatewayPaymentStatus): "done" | "wait" | "cancel" =>
  status === "canceled" || status === "succeeded" ? "done" : status === "processing" ? "wait" : "cancel";

/** The failure of a release that must wait for the provider's answer to the authorization. */
export const releaseMustWait = (paymentId: string): PaymentOutcomeAmbiguous =>
  new PaymentOutcomeAmbiguous({ operation: "release", paymentId, detail: "The authorization's answer is not known yet; release it again later." });

const decodeIntent = Schema.decodeUnknownSync(PaymentIntentWire);
const decodeRefund = Schema.decodeUnknownSync(RefundWire);

/** A payment of the port from the payment API's intent view (a body that is not one is a defect). */
export const paymentOfWire = (body: unknown): GatewayPayment => {
  const i = decodeIntent(body);
  return {
    paymentId: i.id,
    merchantId: i.merchantId,
    status: i.status,
    amount: { amount_minor: i.amountMinor, currency: i.currency },
    capturableMinor: i.amountCapturableMinor,
    capturedMinor: i.amountCapturedMinor,
    refundedMinor: i.amountRefundedMinor,
  };
};

/** A refund of the port from the payment API's refund view (a body that is not one is a defect). */
export const refundOfWire = (body: unknown): GatewayRefund => {
  const r = decodeRefund(body);
  return { refundId: r.id, paymentId: r.paymentIntentId, amount: { amount_minor: r.amountMinor, currency: r.currency }, status: r.status };
};
