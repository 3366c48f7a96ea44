/**
 * Risk holds of payment intents (core/payments/model/RiskHold.ts). The store keeps at most one
 * active hold per intent and never edits a hold except to release it once.
 */
import { Context, Effect } from "effect";
import type { RiskHold } from "../../core/payments/model/RiskHold.js";

/** Risk hold storage. */
export interface RiskHolds {
  /** Stores a new active hold; false, storing nothing, when the intent already has an active one. */
  readonly place: (hold: RiskHold) => Effect.Effect<boolean>;
  /** The intent's active hold, or null. */
  readonly active: (intentId: string) => Effect.Effect<RiskHold | null>;
  /**
   * Releases the intent's active hold of `merchantId`: answers the released hold, or null,
   * changing nothing, when the intent has no active hold of that merchant.
   */
  readonly release: (req: {
    readonly merchantId: string;
    readonly intentId: string;
    readonly releasedBy: string;
    readonly reason: string;
    readonly at: Date;
  }) => Effect.Effect<RiskHold | null>;
  /**
   * The holds of `merchantId` (active only when `activeOnly`), newest first, strictly before
   * the hold id `before`, at most `limit`.
   */
  readonly list: (req: { readonly merchantId: string; readonly activeOnly: boolean; readonly before?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<RiskHold>>;
}
export const RiskHolds = Context.GenericTag<RiskHolds>("domainkit/payments/RiskHolds");
