/**
 * A quote's placement keeps the customer's payment-method token (the provider's `pm_…`
 * reference, not card data) only while the authorization may be sent again: the payment
 * resolution re-sends it while the order is payment_pending, a void without a payment id and the
 * placement release rebuild it from the placement. Once the order's payment is captured, voided
 * or declined, or the provider confirmed the release canceled, the location retention pass
 * replaces it with "[REDACTED]" (delivery migration 16 allows exactly that change).
 */
import { Effect } from "effect";
import { withSpan } from "../kernel/Span.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";

/** Redacts the tokens nothing can send again; answers how many. */
export const redactSettledPaymentMethods = Effect.flatMap(OrdersRepository, (orders) => orders.redactSettledPaymentMethods()).pipe(
  withSpan("delivery.redactSettledPaymentMethods"),
);
