/**
 * Confirm risk (spec, Payment service limits: "Rate limits apply by credential, merchant, IP and
 * risk signal"): an intent whose attempts were declined `maxDeclines` times within `window` takes
 * no new attempt — 429 `confirm_risk` with Retry-After until the oldest of those declines leaves
 * the window. Trying card after card on one intent is how stolen cards are tested; the intent is
 * locked while this is checked, so parallel confirms cannot pass the bound together.
 */
import { Duration, Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { DomainError } from "../kernel/Errors.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";

/** The bound (docs/decisions.md, "Confirm risk"). */
export const confirmRisk = { maxDeclines: 5, window: Duration.hours(1) } as const;

/** Too many declined attempts on the intent in the window: 429 with Retry-After. */
export class ConfirmRiskTooHigh extends DomainError("ConfirmRiskTooHigh", "confirm_risk", "rate_limited")<{
  readonly retryAfterSeconds: number;
}> {}

/** Fails ConfirmRiskTooHigh when the intent is over the bound; run with the intent locked. */
export const requireConfirmRiskBelowBound = (intent: PaymentIntent) =>
  Effect.gen(function* () {
    const at = yield* now;
    const windowMs = Duration.toMillis(confirmRisk.window);
    const declines = yield* (yield* PaymentsRepository).declinesSince(intent.id, new Date(at.getTime() - windowMs), confirmRisk.maxDeclines);
    if (declines.length < confirmRisk.maxDeclines) return;
    return yield* Effect.fail(
      new ConfirmRiskTooHigh({
        retryAfterSeconds: Math.max(1, Math.ceil((declines[0]!.getTime() + windowMs - at.getTime()) / 1000)),
        detail: `This payment intent was declined ${confirmRisk.maxDeclines} times within the hour; try again later.`,
      }),
    );
  });
