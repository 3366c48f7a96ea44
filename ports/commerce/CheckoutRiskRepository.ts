/**
 * The risk signals of checkouts (digests of the customer's account, the client's network and the
 * e-mail), when each checkout was declined, and a lock per signal: a checkout takes the locks of
 * its signals, then counts each signal's declines and unresolved checkouts under them. Signal rows
 * and locks are kept a day (retention).
 */
import { Context, type Effect } from "effect";
import type { OrderId } from "../../core/commerce/model/Ids.js";

/** What counts against the bound under one signal within the window. */
export interface SignalRisk {
  /** When its checkouts were declined, oldest first. */
  readonly declines: ReadonlyArray<Date>;
  /** How many of its checkouts have a payment still unresolved (authorization in flight). */
  readonly unresolved: number;
}

export interface CheckoutRiskRepository {
  /**
   * Takes the lock of each of `signals` until the transaction ends (in digest order, so two
   * checkouts never wait on each other crosswise); one statement.
   */
  readonly lockSignals: (signals: ReadonlyArray<string>, at: Date) => Effect.Effect<void>;
  /**
   * For each of `signals` (in their order): its newest declines since `since` (at most `limit`,
   * answered oldest first) and its checkouts recorded since `since` whose payment is unresolved —
   * the order's payment record (OrdersRepository) is `authorizing` or `unknown`, and the checkout
   * was not marked declined — (at most `limit`); one statement. Read under the signals' locks.
   */
  readonly riskSince: (signals: ReadonlyArray<string>, since: Date, limit: number) => Effect.Effect<ReadonlyArray<SignalRisk>>;
  /** Records the signal digests of an order's checkout (in the checkout's transaction); one statement. */
  readonly recordSignals: (orderId: OrderId, signals: ReadonlyArray<string>, at: Date) => Effect.Effect<void>;
  /** Marks the order's signals declined at `at`; signals already marked keep their time. */
  readonly markDeclined: (orderId: OrderId, at: Date) => Effect.Effect<void>;
  /** Deletes at most `limit` signals recorded before `before`; how many. */
  readonly deleteRecordedBefore: (before: Date, limit: number) => Effect.Effect<number>;
  /** Deletes at most `limit` locks last taken before `before`; how many. */
  readonly deleteLocksBefore: (before: Date, limit: number) => Effect.Effect<number>;
}
export const CheckoutRiskRepository = Context.GenericTag<CheckoutRiskRepository>("domainkit/commerce/CheckoutRiskRepository");
