/** What the payment history of one intent says about its risk (core/payments/RiskHolds.ts reads it). */
import { Context, Effect } from "effect";

/** Counts over an intent's attempts, disputes and refunds. */
export interface IntentRiskSignals {
  readonly attempts: number;
  readonly declinedAttempts: number;
  /** Attempts whose provider outcome was ambiguous and is not resolved yet. */
  readonly unknownOutcomes: number;
  /** The distinct decline codes of its attempts, in code order (at most 20). */
  readonly declineCodes: ReadonlyArray<string>;
  readonly disputes: number;
  readonly lostDisputes: number;
  readonly refunds: number;
}

/** Risk signal reads. */
export interface RiskSignals {
  /** The signals of the intent `intentId` (zero counts for an intent with no history). */
  readonly ofIntent: (intentId: string) => Effect.Effect<IntentRiskSignals>;
}
export const RiskSignals = Context.GenericTag<RiskSignals>("domainkit/payments/RiskSignals");
