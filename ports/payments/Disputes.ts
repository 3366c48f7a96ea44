/**
 * Storage of the disputes projection: a read-only table per merchant, written only from
 * provider dispute events. The write is one conditional upsert that applies an event only when
 * it is newer (provider time) than what is stored and the stored dispute is not closed.
 */
import { Context, Effect } from "effect";
import type { Dispute } from "../../core/payments/model/Dispute.js";
import type { MerchantId, PaymentIntentId } from "../../core/payments/model/Ids.js";

/** The disputes projection. */
export interface Disputes {
  /** The merchant and intent of a provider payment id, or null when no intent carries it. */
  readonly intentOfProviderPayment: (
    providerPaymentId: string,
  ) => Effect.Effect<{ readonly merchantId: MerchantId; readonly intentId: PaymentIntentId } | null>;
  /** Inserts or advances a dispute; false when the stored one is newer, as new, or closed. */
  readonly apply: (dispute: Dispute) => Effect.Effect<boolean>;
  readonly findByProviderId: (providerDisputeId: string) => Effect.Effect<Dispute | null>;
  /** A merchant's disputes, newest first, strictly before the dispute id `before`. */
  readonly list: (req: { readonly merchantId: string; readonly before?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<Dispute>>;
}
export const Disputes = Context.GenericTag<Disputes>("domainkit/payments/Disputes");
