/**
 * A risk hold (spec, Payment service, Authentication 2: "Risk analyst: risk signals and holds"):
 * a merchant's risk analyst stops an intent from moving money until the hold is released. While
 * a hold is active, confirm (a new provider attempt) and capture are refused; cancel and refunds
 * are not (they return money). One active hold per intent; a hold is never edited or deleted,
 * only released once, and both steps are audited (table payment_risk_holds, payments migration 24).
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { MerchantId, PaymentIntentId, RiskHoldId } from "./Ids.js";

/** Why a hold is placed or released: free text for the audit, 1 to 500 characters. */
export const HoldReason = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500));

/** A risk hold record. */
export const RiskHold = Schema.Struct({
  id: RiskHoldId,
  intentId: PaymentIntentId,
  merchantId: MerchantId,
  reason: HoldReason,
  /** The audit actor who placed it (merchant and key, never a secret). */
  placedBy: Schema.String,
  placedAt: Schema.DateFromSelf,
  releasedBy: Schema.NullOr(Schema.String),
  releaseReason: Schema.NullOr(HoldReason),
  releasedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type RiskHold = typeof RiskHold.Type;

/** A hold as its merchant's analysts see it. */
export const RiskHoldView = Schema.Struct({
  id: RiskHold.fields.id,
  object: Schema.Literal("risk_hold"),
  ...Struct.omit(RiskHold.fields, "id", "merchantId"),
});
export type RiskHoldView = typeof RiskHoldView.Type;
/** The hold view on the wire. */
export const RiskHoldWire = wireShape(RiskHoldView);

/** The merchant's view of `hold`. */
export const riskHoldView = (hold: RiskHold): RiskHoldView => ({ id: hold.id, object: "risk_hold", ...Struct.omit(hold, "id", "merchantId") });

/** Whether `hold` still stops the intent. */
export const isActive = (hold: RiskHold): boolean => hold.releasedAt === null;
