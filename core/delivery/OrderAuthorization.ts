/**
 * The authorization request an order's placement sent, rebuilt from its quote and placement:
 * what the resolve job sends again when the payment's id was lost, and what the void releases
 * (`releaseAuthorization`) when that id was never learned.
 */
import { Effect } from "effect";
import { Conflict } from "../kernel/Errors.js";
import { independentReads } from "../kernel/IndependentReads.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { AuthorizeRequest } from "../../ports/PaymentGateway.js";
import type { Order } from "./model/Order.js";
import { quoteAuthorization } from "./QuoteAuthorization.js";

/** The quote's authorization request of `order`; fails payment_unknown when its quote or placement is missing. */
export const orderAuthorization = (order: Order): Effect.Effect<AuthorizeRequest, Conflict, OrdersRepository> =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const [quote, placement] = yield* independentReads(orders.findQuote(order.quoteId), orders.findPlacement(order.quoteId));
    if (quote === null || placement === null) {
      return yield* Effect.fail(new Conflict({ code: "payment_unknown", detail: `order ${order.id}: the payment id is not known and the quote's placement is missing` }));
    }
    return quoteAuthorization(quote, placement);
  });
