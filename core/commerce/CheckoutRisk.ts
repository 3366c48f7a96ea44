/**
 * Checkout risk (issue rule 8; spec, commerce Limits: "Rate limits apply by account, IP and
 * checkout risk signals"): a checkout is refused with 429 `checkout_risk` and Retry-After while,
 * under any of its signals (the customer's account, the client's network, the e-mail:
 * core/commerce/RiskSignals.ts), the checkouts declined within `window` plus the checkouts whose
 * payment is still unresolved reach `max`. Guests and customers alike, so a customer over the
 * bound is refused as a guest too. The count runs in the checkout's transaction under a lock per
 * signal, so checkouts sent at once are counted one after the other: a burst from one network
 * gets at most `max` authorizations. Each signal is counted on its own; the wait is until every
 * one of them is under the bound again.
 */
import { Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { retryAfterSeconds, windowStart, type SlidingWindowBound } from "../kernel/SlidingWindowBound.js";
import { CheckoutRiskRepository, type SignalRisk } from "../../ports/commerce/CheckoutRiskRepository.js";

/** The bound (docs/decisions.md, E-commerce slice 2), the same for every signal. */
export const checkoutRisk: SlidingWindowBound = { max: 5, window: Duration.hours(1) };

/**
 * The wait when unresolved checkouts fill the bound: a live authorization answers within seconds,
 * a lost answer is looked up by the resolution job 30 s after checkout (core/commerce/OrderPayments.ts).
 */
export const unresolvedRetryAfter = Duration.seconds(30);

/** Too many declined (or unresolved) checkouts in the window: 429 with Retry-After. */
export class CheckoutRiskTooHigh extends DomainError("CheckoutRiskTooHigh", "checkout_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/** Seconds until the signal is under the bound again, or null while it is. */
const waitOf = (risk: SignalRisk, at: Date): number | null => {
  const declined = retryAfterSeconds(checkoutRisk, risk.declines, at);
  if (declined !== null) return declined;
  return risk.declines.length + risk.unresolved >= checkoutRisk.max ? Duration.toSeconds(unresolvedRetryAfter) : null;
};

/**
 * In the checkout's transaction: takes the locks of `signals` (digests), then fails
 * CheckoutRiskTooHigh when any of them is over the bound.
 */
export const checkCheckoutRisk = (signals: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (signals.length === 0) return;
    const at = yield* now;
    const since = windowStart(checkoutRisk, at);
    const risk = yield* CheckoutRiskRepository;
    yield* risk.lockSignals(signals, at);
    const waits = (yield* risk.riskSince(signals, since, checkoutRisk.max)).map((r) => waitOf(r, at)).filter((wait): wait is number => wait !== null);
    if (waits.length === 0) return;
    return yield* Effect.fail(new CheckoutRiskTooHigh({ retryAfterSeconds: Math.max(...waits), detail: "Too many declined payments; try again later." }));
  });
