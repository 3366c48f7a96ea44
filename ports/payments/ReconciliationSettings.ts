/**
 * Reconciliation settings and the provider's settlement files. The ambiguity-resolution window
 * is not stated by the spec: it is configuration (default 15 minutes), as is how often a
 * processing intent is re-checked inside it.
 */
import { Context, Effect } from "effect";
import type { ProviderOutcomeUnknown } from "../../core/payments/model/ProviderErrors.js";

/** How long an ambiguous provider outcome may stay unresolved, and how often it is re-checked. */
export interface ReconciliationSettings {
  readonly ambiguityWindowMs: number;
  readonly recheckIntervalMs: number;
}
export const ReconciliationSettings = Context.GenericTag<ReconciliationSettings>("domainkit/payments/ReconciliationSettings");

/** The defaults: a 15-minute window, re-checked every minute. */
export const defaultReconciliationSettings: ReconciliationSettings = { ambiguityWindowMs: 15 * 60_000, recheckIntervalMs: 60_000 };

/** The provider's daily settlement files (CSV). */
export interface ReconciliationSettlementFiles {
  /** The settlement file of UTC day `day` (YYYY-MM-DD) as the provider publishes it. */
  readonly fetch: (day: string) => Effect.Effect<string, ProviderOutcomeUnknown>;
}
export const ReconciliationSettlementFiles = Context.GenericTag<ReconciliationSettlementFiles>(
  "domainkit/payments/ReconciliationSettlementFiles",
);
