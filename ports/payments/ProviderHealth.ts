/**
 * What our records show of the payment provider's health, for platform operators (spec, Payment
 * service, Authentication 2: "Platform operator: provider health"): the outcomes still open with
 * the provider and when its last verified webhook arrived. Counts of open work only, each served by
 * a partial index, so a read costs what is open, never the payment history.
 */
import { Context, Effect } from "effect";

/** One reading of the provider's health. */
export interface ProviderHealthSnapshot {
  /** Intents in processing whose current attempt's outcome is unknown (reconciliation asks the provider). */
  readonly unknownAttempts: number;
  /** Attempts still pending (the provider's answer never recorded) that started before `unrecordedBefore`. */
  readonly unrecordedAttempts: number;
  /** Refunds awaiting the provider's answer. */
  readonly pendingRefunds: number;
  /** Open `unresolved` reconciliation exceptions: the provider gave no answer within the ambiguity window. */
  readonly openUnresolvedExceptions: number;
  /** When the last verified provider webhook was received, or null. */
  readonly lastProviderEventAt: Date | null;
}

/** Reads of the provider's health. */
export interface ProviderHealthReads {
  readonly snapshot: (input: { readonly unrecordedBefore: Date }) => Effect.Effect<ProviderHealthSnapshot>;
}
export const ProviderHealthReads = Context.GenericTag<ProviderHealthReads>("domainkit/payments/ProviderHealthReads");
