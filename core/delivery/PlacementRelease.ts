/**
 * The release of a placement that never wrote its order (docs/decisions.md, "Delivery checkout
 * writes before it authorizes"). Scheduled with the placement, before the payment is authorized,
 * keyed by the quote and due a grace period after the quote expires, when no placement of it can
 * still succeed; a placement that writes its order cancels it. When it runs it moves the
 * placement from `authorizing` to `released` (the same conditional update the order's
 * transaction makes, so exactly one of them wins) and then releases the authorization through
 * the gateway, which voids it if it was made and fences its key if not. While the provider's
 * answer to the authorization is unknown, the attempt fails and the job retries with backoff.
 */
import { Duration, Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { QuoteId } from "./model/Ids.js";
import type { Quote } from "./model/Quote.js";
import { quoteAuthorization } from "./QuoteAuthorization.js";

/**
 * How long after a quote expires its unplaced authorization is released: longer than a
 * placement started just before expiry can take (two gateway calls, 30 s each at most over HTTP).
 */
export const placementReleaseGrace = Duration.minutes(5);

/** When the release job of a placement of `quote` is due. */
export const placementReleaseAt = (quote: Quote): Date => new Date(quote.expiresAt.getTime() + Duration.toMillis(placementReleaseGrace));

/** Releases the placement of `quoteId` unless its order was written; answers whether it released. */
export const releasePlacement = (quoteId: QuoteId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const placement = yield* orders.findPlacement(quoteId);
    const quote = yield* orders.findQuote(quoteId);
    if (placement === null || quote === null || placement.state === "placed") return false;
    if (placement.state === "authorizing") {
      const released = yield* (yield* Transactions).run(Effect.flatMap(now, (at) => orders.finishPlacement(quoteId, "released", at)));
      // The order's transaction moved it first: the order stands, with its authorization.
      if (!released) return false;
    }
    // Released (now, or by an earlier attempt whose gateway call failed): the authorization must not stand.
    const released = yield* (yield* PaymentGateway).releaseAuthorization(quoteAuthorization(quote, placement));
    // Confirmed canceled: nothing sends this authorization again, so its token can go (PaymentMethodRetention.ts).
    if (released.status === "canceled") yield* (yield* Transactions).run(Effect.flatMap(now, (at) => orders.confirmRelease(quoteId, at)));
    return true;
  }).pipe(withSpan("delivery.releasePlacement"));

export const placementReleaseJob = defineJob({
  kind: "delivery.placement_release",
  payload: Schema.Struct({ quoteId: QuoteId }),
  handle: ({ quoteId }) => Effect.asVoid(releasePlacement(quoteId)),
});
