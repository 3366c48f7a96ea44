/**
 * Checkout risk (issue rule 8: rate limits by checkout risk, e.g. repeated declines): a customer
 * whose payments were declined `max` times within `window` is refused further checkouts
 * with 429 `checkout_risk` and Retry-After until the oldest of those declines leaves the window.
 * Requests per account and per IP are limited by the host's rate limiter; a guest's cart is
 * spent by its one checkout, so guests are bounded by that and the per-IP limit.
 */
import { Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { retryAfterSeconds, windowStart, type SlidingWindowBound } from "../kernel/SlidingWindowBound.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Shopper } from "./Access.js";

/** The bound (docs/decisions.md, E-commerce slice 2). */
export const checkoutRisk: SlidingWindowBound = { max: 5, window: Duration.hours(1) };

/** Too many declined checkouts in the window: 429 with Retry-After. */
export class CheckoutRiskTooHigh extends DomainError("CheckoutRiskTooHigh", "checkout_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/** Fails CheckoutRiskTooHigh when the shopper is over the bound. */
export const checkCheckoutRisk = (shopper: Shopper) =>
  Effect.gen(function* () {
    if (shopper.kind !== "customer") return;
    const at = yield* now;
    const declines = yield* (yield* OrdersRepository).declinedCheckoutsSince(shopper.userId, windowStart(checkoutRisk, at), checkoutRisk.max);
    const wait = retryAfterSeconds(checkoutRisk, declines, at);
    if (wait === null) return;
    return yield* Effect.fail(new CheckoutRiskTooHigh({ retryAfterSeconds: wait, detail: "Too many declined payments; try again later." }));
  });
