/**
 * A quote's placement: written before the payment is authorized, so that an authorization is
 * never left behind by a failure between the provider's answer and the order's transaction
 * (docs/decisions.md, "Delivery checkout writes before it authorizes"). It keeps what the
 * authorization was asked with (merchant and payment-method token), and its state decides, under
 * the row's lock, between the placement writing the order (`placed`) and the release job voiding
 * the authorization (`released`): whichever moves it out of `authorizing` first wins, once.
 */
import { Schema } from "effect";
import { QuoteId } from "./Ids.js";

export const PlacementState = Schema.Literal("authorizing", "placed", "released");
export type PlacementState = typeof PlacementState.Type;

export const QuotePlacement = Schema.Struct({
  quoteId: QuoteId,
  /** The merchant the authorization was asked for (the restaurant's at the first attempt). */
  merchantId: Schema.String,
  /** The provider's payment-method token the authorization was asked with (not a card number); redacted once settled. */
  paymentMethod: Schema.String,
  state: PlacementState,
  startedAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  /** When the provider confirmed a released placement's authorization canceled; null until then. */
  releaseConfirmedAt: Schema.NullOr(Schema.DateFromSelf),
});

/** What a placement's token becomes once nothing can send its authorization again (PaymentMethodRetention.ts). */
export const redactedPaymentMethod = "[REDACTED]";
export type QuotePlacement = typeof QuotePlacement.Type;
