/** Support refunds of delivered orders (dl_refunds: within the captured amount, settled once, never deleted). */
import { Context, type Effect } from "effect";
import type { Refund } from "../../core/delivery/model/Refund.js";

export interface Refunds {
  /** Records a new pending refund (the database refuses one above what is left of the captured amount). */
  readonly insert: (refund: Refund) => Effect.Effect<void>;
  readonly find: (id: string) => Effect.Effect<Refund | null>;
  /** The order's refunds by id, after `afterId`; at most `limit`. */
  readonly ofOrder: (query: { readonly orderId: string; readonly afterId: string | null; readonly limit: number }) => Effect.Effect<ReadonlyArray<Refund>>;
  /** The sum of the order's refunds that did not fail (pending and refunded). */
  readonly committedMinor: (orderId: string) => Effect.Effect<number>;
  /** Records the outcome of a pending refund; false when it is no longer pending. */
  readonly settle: (id: string, outcome: { readonly status: "refunded" | "failed"; readonly failure: string | null; readonly at: Date }) => Effect.Effect<boolean>;
}
export const Refunds = Context.GenericTag<Refunds>("domainkit/delivery/Refunds");
