/**
 * Checkout risk (issue rule 8; spec, commerce Limits: "Rate limits apply by account, IP and
 * checkout risk signals"): a checkout is refused with 429 `checkout_risk` and Retry-After while
 * `max` checkouts were declined within `window` under any of its signals: the customer's account,
 * the client's network, the e-mail (core/commerce/RiskSignals.ts). Guests and customers alike, so
 * a customer over the bound is refused as a guest too. Each signal is counted on its own; the
 * wait is until every one of them is under the bound again.
 */
import { Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { retryAfterSeconds, windowStart, type SlidingWindowBound } from "../kernel/SlidingWindowBound.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Shopper } from "./Access.js";

/** The bound (docs/decisions.md, E-commerce slice 2), the same for every signal. */
export const checkoutRisk: SlidingWindowBound = { max: 5, window: Duration.hours(1) };

/** Too many declined checkouts in the window: 429 with Retry-After. */
export class CheckoutRiskTooHigh extends DomainError("CheckoutRiskTooHigh", "checkout_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/**
 * Fails CheckoutRiskTooHigh when the shopper's account (a customer's) or any of `signals` (the
 * digests of the checkout's network and e-mail) is over the bound.
 */
export const checkCheckoutRisk = (shopper: Shopper, signals: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const at = yield* now;
    const since = windowStart(checkoutRisk, at);
    const risk = yield* CheckoutRiskRepository;
    const orders = yield* OrdersRepository;
    const declines = yield* Effect.all(
      [
        ...(shopper.kind === "customer" ? [orders.declinedCheckoutsSince(shopper.userId, since, checkoutRisk.max)] : []),
        ...signals.map((signal) => risk.declinesSince(signal, since, checkoutRisk.max)),
      ],
      { concurrency: "unbounded" },
    );
    const waits = declines.map((events) => retryAfterSeconds(checkoutRisk, events, at)).filter((wait): wait is number => wait !== null);
    if (waits.length === 0) return;
    return yield* Effect.fail(new CheckoutRiskTooHigh({ retryAfterSeconds: Math.max(...waits), detail: "Too many declined payments; try again later." }));
  });
