/**
 * Confirm risk (spec, Payment service limits: "Rate limits apply by credential, merchant, IP and
 * risk signal"): an intent whose attempts were declined `max` times within `window` takes
 * no new attempt — 429 `confirm_risk` with Retry-After until the oldest of those declines leaves
 * the window. Trying card after card on one intent is how stolen cards are tested; the intent is
 * locked while this is checked, so parallel confirms cannot pass the bound together.
 */
import { Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { retryAfterSeconds, windowStart, type SlidingWindowBound } from "../kernel/SlidingWindowBound.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";

/** The bound (docs/decisions.md, "Confirm risk"): declines of one intent. */
export const confirmRisk: SlidingWindowBound = { max: 5, window: Duration.hours(1) };

/** Too many declined attempts on the intent in the window: 429 with Retry-After. */
export class ConfirmRiskTooHigh extends DomainError("ConfirmRiskTooHigh", "confirm_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/** Fails ConfirmRiskTooHigh when the intent is over the bound; run with the intent locked. */
export const requireConfirmRiskBelowBound = (intent: PaymentIntent) =>
  Effect.gen(function* () {
    const at = yield* now;
    const declines = yield* (yield* PaymentsRepository).declinesSince(intent.id, windowStart(confirmRisk, at), confirmRisk.max);
    const wait = retryAfterSeconds(confirmRisk, declines, at);
    if (wait === null) return;
    return yield* Effect.fail(
      new ConfirmRiskTooHigh({
        retryAfterSeconds: wait,
        detail: `This payment intent was declined ${confirmRisk.max} times within the hour; try again later.`,
      }),
    );
  });
