/**
 * Checkout risk (issue rule 8; spec, commerce Limits: "Rate limits apply by account, IP and
 * checkout risk signals"): a checkout is refused with 429 `checkout_risk` and Retry-After while,
 * under any of its signals (the customer's account, the client's network, the e-mail:
 * core/commerce/RiskSignals.ts), the checkouts declined within the window plus the checkouts whose
 * payment is still unresolved reach that signal's bound (`CheckoutRiskLimits`). Guests and
 * customers alike, so a customer over the bound is refused as a guest too. The count runs in the
 * checkout's transaction under a lock per signal, so checkouts sent at once are counted one after
 * the other: a burst under one signal gets at most its bound of authorizations. Each signal is
 * counted on its own; the wait is until every one of them is under its bound again.
 */
import { Context, Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { retryAfterSeconds, windowStart, type SlidingWindowBound } from "../kernel/SlidingWindowBound.js";
import { CheckoutRiskRepository, type SignalRisk } from "../../ports/commerce/CheckoutRiskRepository.js";
import type { RiskSignalKind } from "./RiskSignals.js";

/**
 * The bounds: at most `max[kind]` declined plus unresolved checkouts under one signal of that kind
 * within `window`.
 */
export interface CheckoutRiskBounds {
  readonly window: Duration.Duration;
  readonly max: { readonly [K in RiskSignalKind]: number };
}

/**
 * The defaults. An account and an e-mail: 5 within an hour (docs/decisions.md, E-commerce slice
 * 2). A network: 20, four times as many, because many clients share one (a carrier's or an
 * office's NAT; every client behind a proxy without TRUST_PROXY), so a few customers' declines or
 * checkouts in flight there do not refuse everyone else; a card-testing run from one network is
 * still stopped after 20.
 */
export const defaultCheckoutRiskBounds: CheckoutRiskBounds = {
  window: Duration.hours(1),
  max: { account: 5, email: 5, network: 20 },
};

/** The bounds checkout applies: `defaultCheckoutRiskBounds` unless the host provides others. */
export class CheckoutRiskLimits extends Context.Reference<CheckoutRiskLimits>()("domainkit/commerce/CheckoutRiskLimits", {
  defaultValue: (): CheckoutRiskBounds => defaultCheckoutRiskBounds,
}) {}

/** The sliding-window bound of one kind of signal. */
export const boundOfKind = (bounds: CheckoutRiskBounds, kind: RiskSignalKind): SlidingWindowBound => ({ max: bounds.max[kind], window: bounds.window });

/**
 * The wait when unresolved checkouts fill the bound: a live authorization answers within seconds,
 * a lost answer is looked up by the resolution job 30 s after checkout (core/commerce/OrderPayments.ts).
 */
export const unresolvedRetryAfter = Duration.seconds(30);

/** Too many declined (or unresolved) checkouts in the window: 429 with Retry-After. */
export class CheckoutRiskTooHigh extends DomainError("CheckoutRiskTooHigh", "checkout_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/** A digested signal of a checkout and its kind. */
export interface DigestedRiskSignal {
  readonly kind: RiskSignalKind;
  readonly digest: string;
}

/** Seconds until the signal is under `bound` again, or null while it is. */
const waitOf = (bound: SlidingWindowBound, risk: SignalRisk, at: Date): number | null => {
  // Declines are read up to the largest bound: the count falls under this one when the
  // `bound.max`-th newest of them leaves the window.
  const declined = retryAfterSeconds(bound, risk.declines.slice(Math.max(0, risk.declines.length - bound.max)), at);
  if (declined !== null) return declined;
  return risk.declines.length + risk.unresolved >= bound.max ? Duration.toSeconds(unresolvedRetryAfter) : null;
};

/**
 * In the checkout's transaction: takes the locks of `signals`, then fails CheckoutRiskTooHigh when
 * any of them is over its kind's bound.
 */
export const checkCheckoutRisk = (signals: ReadonlyArray<DigestedRiskSignal>) =>
  Effect.gen(function* () {
    if (signals.length === 0) return;
    const at = yield* now;
    const limits = yield* CheckoutRiskLimits;
    const bounds = signals.map((signal) => boundOfKind(limits, signal.kind));
    const risk = yield* CheckoutRiskRepository;
    const digests = signals.map((signal) => signal.digest);
    yield* risk.lockSignals(digests, at);
    const risks = yield* risk.riskSince(digests, windowStart(bounds[0]!, at), Math.max(...bounds.map((bound) => bound.max)));
    const waits = risks.map((r, i) => waitOf(bounds[i]!, r, at)).filter((wait): wait is number => wait !== null);
    if (waits.length === 0) return;
    return yield* Effect.fail(new CheckoutRiskTooHigh({ retryAfterSeconds: Math.max(...waits), detail: "Too many declined payments; try again later." }));
  });
