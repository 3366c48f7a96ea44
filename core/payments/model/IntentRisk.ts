/**
 * An intent's risk picture as a risk analyst reads it (GET /v1/payment-intents/:id/risk): its
 * state and amounts, the signals of its history and its active hold. No client secret, payment
 * method token or provider id (spec: "with no secret or raw instrument access").
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { PaymentIntent } from "./PaymentIntent.js";
import { RiskHoldWire, riskHoldView, type RiskHold, type RiskHoldView } from "./RiskHold.js";
import type { IntentRiskSignals } from "../../../ports/payments/RiskSignals.js";

/** The intent's own fields of the risk view. */
export const IntentRiskSummary = Schema.Struct({
  object: Schema.Literal("payment_intent_risk"),
  intentId: PaymentIntent.fields.id,
  ...Struct.pick(PaymentIntent.fields, "status", "amountMinor", "currency", "amountCapturedMinor", "amountRefundedMinor", "lastDeclineCode"),
});

/** The signals of an intent's history (IntentRiskSignals) on the wire. */
export const RiskSignalsWire = wireShape(
  Schema.Struct({
    attempts: Schema.Int,
    declinedAttempts: Schema.Int,
    unknownOutcomes: Schema.Int,
    declineCodes: Schema.Array(Schema.String),
    disputes: Schema.Int,
    lostDisputes: Schema.Int,
    refunds: Schema.Int,
  }),
);

/** The risk view on the wire: the summary, with the signals and the active hold as nested wire shapes. */
export const IntentRiskWire = Schema.extend(
  wireShape(IntentRiskSummary),
  Schema.Struct({ signals: RiskSignalsWire, active_hold: Schema.NullOr(RiskHoldWire) }),
);
export type IntentRiskView = typeof IntentRiskWire.Type;

/** The risk view of `intent` with its `signals` and `activeHold`. */
export const intentRiskView = (intent: PaymentIntent, signals: IntentRiskSignals, activeHold: RiskHold | null): IntentRiskView => ({
  object: "payment_intent_risk",
  intentId: intent.id,
  ...Struct.pick(intent, "status", "amountMinor", "currency", "amountCapturedMinor", "amountRefundedMinor", "lastDeclineCode"),
  signals: { ...signals, declineCodes: [...signals.declineCodes] },
  active_hold: activeHold === null ? null : (riskHoldView(activeHold) satisfies RiskHoldView),
});
