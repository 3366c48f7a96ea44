/**
 * The risk signals of checkouts (digests of the client's network and e-mail) and when each
 * checkout was declined: declines are counted per signal. Rows are kept a day (retention).
 */
import { Context, type Effect } from "effect";
import type { OrderId } from "../../core/commerce/model/Ids.js";

export interface CheckoutRiskRepository {
  /** Records the signal digests of an order's checkout (in the checkout's transaction). */
  readonly recordSignals: (orderId: OrderId, signals: ReadonlyArray<string>, at: Date) => Effect.Effect<void>;
  /** Marks the order's signals declined at `at`; signals already marked keep their time. */
  readonly markDeclined: (orderId: OrderId, at: Date) => Effect.Effect<void>;
  /** When checkouts carrying `signal` were declined since `since`, oldest first, at most `limit`. */
  readonly declinesSince: (signal: string, since: Date, limit: number) => Effect.Effect<ReadonlyArray<Date>>;
  /** Deletes at most `limit` signals recorded before `before`; how many. */
  readonly deleteRecordedBefore: (before: Date, limit: number) => Effect.Effect<number>;
}
export const CheckoutRiskRepository = Context.GenericTag<CheckoutRiskRepository>("domainkit/commerce/CheckoutRiskRepository");
