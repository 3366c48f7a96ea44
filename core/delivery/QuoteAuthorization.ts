/**
 * The one authorization request of a quote: its key, reference and amount are derived from the
 * quote, and the merchant and payment-method token from its placement, so the placement, a retry
 * and the release job all send the same request and the gateway answers the same payment.
 */
import type { AuthorizeRequest } from "../../ports/PaymentGateway.js";
import type { Quote } from "./model/Quote.js";
import type { QuotePlacement } from "./model/QuotePlacement.js";

/** The payment idempotency key of a quote's authorization: one authorization per quote, whatever the retries. */
export const authorizationKey = (quoteId: string): string => `delivery:quote:${quoteId}:authorize`;

/** What the gateway is asked to authorize for `quote`, as its placement recorded it. */
export const quoteAuthorization = (quote: Quote, placement: QuotePlacement): AuthorizeRequest => ({
  merchantId: placement.merchantId,
  idempotencyKey: authorizationKey(quote.id),
  reference: `delivery-quote:${quote.id}`,
  amount: { amount_minor: quote.totalMinor, currency: quote.currency },
  paymentMethod: placement.paymentMethod,
  captureMethod: "manual",
});
