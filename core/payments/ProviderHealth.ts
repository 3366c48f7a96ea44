/**
 * Query: the payment provider's health as our records show it (GET /v1/operator/provider-health;
 * spec, Payment service, Authentication 2: "Platform operator: provider health"). Platform
 * operators only; counts across merchants, never an amount, a merchant or a token.
 */
import { Effect, Schema } from "effect";
import type { Forbidden } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { wireShape } from "../kernel/Wire.js";
import type { Principal } from "../../ports/Principal.js";
import { ProviderHealthReads } from "../../ports/payments/ProviderHealth.js";
import { requireOperator, type OperatorPolicy } from "./OperatorReplay.js";
import { unrecordedAfterMs } from "./UnrecordedAnswers.js";
import { withSpan } from "../kernel/Span.js";

/** The provider health view. */
export const ProviderHealthView = Schema.Struct({
  object: Schema.Literal("provider_health"),
  unknownAttempts: Schema.Int,
  unrecordedAttempts: Schema.Int,
  pendingRefunds: Schema.Int,
  openUnresolvedExceptions: Schema.Int,
  lastProviderEventAt: Schema.NullOr(Schema.DateFromSelf),
});
export type ProviderHealthView = typeof ProviderHealthView.Type;
/** The provider health view on the wire. */
export const ProviderHealthWire = wireShape(ProviderHealthView);

/** Reads the provider's health (platform operators only; anyone else is Forbidden). */
export const getProviderHealth = (
  principal: Principal,
  policy: OperatorPolicy,
): Effect.Effect<ProviderHealthView, Forbidden, ProviderHealthReads> =>
  Effect.gen(function* () {
    yield* requireOperator(principal, policy);
    const at = yield* now;
    // Pending longer than the sweep waits: the provider's answer was never recorded.
    const snapshot = yield* (yield* ProviderHealthReads).snapshot({ unrecordedBefore: new Date(at.getTime() - unrecordedAfterMs) });
    return { object: "provider_health" as const, ...snapshot };
  }).pipe(withSpan("Payments.getProviderHealth"));
