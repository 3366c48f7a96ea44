/**
 * A payment intent: a merchant's goal to collect an amount, tenant-scoped and versioned.
 * Amounts are integer minor units in the intent's currency. The payment method token is a
 * provider token kept for the provider call only: no view shows it.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { MerchantId, PaymentIntentId } from "./Ids.js";

/** Every status an intent can be in (the state machine is IntentStatus.ts). */
export const intentStatuses = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "succeeded",
  "canceled",
] as const;

/** The status of a payment intent. */
export const IntentStatus = Schema.Literal(...intentStatuses);
export type IntentStatus = typeof IntentStatus.Type;

/** automatic: a successful confirm captures at once; manual: it only authorizes. */
export const CaptureMethod = Schema.Literal("automatic", "manual");
export type CaptureMethod = typeof CaptureMethod.Type;

/** A payment intent record (table payment_intents). */
export const PaymentIntent = Schema.Struct({
  id: PaymentIntentId,
  merchantId: MerchantId,
  amountMinor: Schema.Int,
  currency: Schema.String,
  captureMethod: CaptureMethod,
  status: IntentStatus,
  /** Held by an authorization and not yet captured. */
  amountCapturableMinor: Schema.Int,
  amountCapturedMinor: Schema.Int,
  /** Completed refunds only (pending ones are summed from the refunds). */
  amountRefundedMinor: Schema.Int,
  /** The provider token attached at creation, if any (never exposed). */
  paymentMethod: Schema.NullOr(Schema.String),
  providerPaymentId: Schema.NullOr(Schema.String),
  lastDeclineCode: Schema.NullOr(Schema.String),
  attemptCount: Schema.Int,
  version: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type PaymentIntent = typeof PaymentIntent.Type;

/** The fields no view shows: the payment method token and the provider's payment id. */
const hiddenFields = ["paymentMethod", "providerPaymentId"] as const;

/** A payment intent as its merchant sees it: `object: "payment_intent"`, no token, no provider id. */
export const PaymentIntentView = Schema.Struct({
  id: PaymentIntent.fields.id,
  object: Schema.Literal("payment_intent"),
  ...Struct.omit(PaymentIntent.fields, "id", ...hiddenFields),
});
export type PaymentIntentView = typeof PaymentIntentView.Type;
/** The merchant's view on the wire. */
export const PaymentIntentWire = wireShape(PaymentIntentView);

/** The merchant's view of `intent` (the hidden fields are left out, not just unsent). */
export const paymentIntentView = (intent: PaymentIntent): PaymentIntentView => ({
  id: intent.id,
  object: "payment_intent",
  ...Struct.omit(intent, "id", ...hiddenFields),
});

/** The answer of creating an intent: the merchant's view and its client secret (shown that once). */
export const CreatedPaymentIntentView = Schema.Struct({ ...PaymentIntentView.fields, clientSecret: Schema.String });
/** The created intent on the wire. */
export const CreatedPaymentIntentWire = wireShape(CreatedPaymentIntentView);

/**
 * What a customer holding the client secret may see of an intent (spec: "a restricted client
 * secret gives a limited read view"): no merchant internals, provider refs, token or ledger.
 */
export const IntentClientView = Schema.Struct({
  id: PaymentIntent.fields.id,
  object: Schema.Literal("payment_intent_client_view"),
  ...Struct.pick(PaymentIntent.fields, "amountMinor", "currency", "captureMethod", "status", "lastDeclineCode", "createdAt"),
});
export type IntentClientView = typeof IntentClientView.Type;
/** The client view on the wire. */
export const IntentClientViewWire = wireShape(IntentClientView);

/** What a customer may see of `intent`. */
export const clientViewOf = (intent: PaymentIntent): IntentClientView => ({
  id: intent.id,
  object: "payment_intent_client_view",
  ...Struct.pick(intent, "amountMinor", "currency", "captureMethod", "status", "lastDeclineCode", "createdAt"),
});
