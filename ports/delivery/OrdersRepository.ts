/** Quotes and their placements, immutable orders and lines, and each order's workflow row (dl_quotes, dl_quote_placements, dl_orders, dl_order_lines, dl_restaurant_orders). */
import { Context, type Effect } from "effect";
import type { Order } from "../../core/delivery/model/Order.js";
import type { OrderLine } from "../../core/delivery/model/OrderLine.js";
import type { Quote } from "../../core/delivery/model/Quote.js";
import type { QuotePlacement } from "../../core/delivery/model/QuotePlacement.js";
import type { RestaurantOrder } from "../../core/delivery/model/RestaurantOrder.js";

export interface OrdersRepository {
  readonly insertQuote: (quote: Quote) => Effect.Effect<void>;
  readonly findQuote: (id: string) => Effect.Effect<Quote | null>;
  /**
   * Writes the quote's placement (state `authorizing`) unless one exists; answers the stored one
   * either way (`started`: this call wrote it), whatever it was started with.
   */
  readonly startPlacement: (placement: QuotePlacement) => Effect.Effect<{ readonly placement: QuotePlacement; readonly started: boolean }>;
  readonly findPlacement: (quoteId: string) => Effect.Effect<QuotePlacement | null>;
  /**
   * Moves the placement out of `authorizing` to `to` (a conditional update that holds the row
   * until the transaction ends); false when it had already left it: another writer won.
   */
  readonly finishPlacement: (quoteId: string, to: "placed" | "released", at: Date) => Effect.Effect<boolean>;
  /** Records that the provider confirmed a released placement's authorization canceled (once); false when it is not released or already confirmed. */
  readonly confirmRelease: (quoteId: string, at: Date) => Effect.Effect<boolean>;
  /**
   * Replaces the payment-method token of every placement nothing can send again — placed with its
   * order's payment captured, voided or declined, or released with the release confirmed — by
   * "[REDACTED]"; answers how many.
   */
  readonly redactSettledPaymentMethods: () => Effect.Effect<number>;
  /**
   * Writes the order snapshot, its lines and its workflow row; when an order already exists
   * for the quote (one order per quote) writes nothing and answers "exists".
   */
  readonly insertOrder: (
    order: Order,
    lines: ReadonlyArray<OrderLine>,
    workflow: RestaurantOrder,
  ) => Effect.Effect<"inserted" | "exists">;
  readonly findOrder: (id: string) => Effect.Effect<Order | null>;
  readonly findOrderByQuote: (quoteId: string) => Effect.Effect<Order | null>;
  readonly orderLines: (orderId: string) => Effect.Effect<ReadonlyArray<OrderLine>>;
  /** The workflow row; `forUpdate` holds it until the transaction ends (Postgres). */
  readonly findWorkflow: (orderId: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<RestaurantOrder | null>;
  /** The restaurant's workflows in the given statuses, oldest order first (ids are time-ordered), after `afterOrderId`; at most `limit`. */
  readonly listWorkflows: (query: {
    readonly restaurantId: string;
    readonly statuses: ReadonlyArray<string>;
    readonly afterOrderId: string | null;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<RestaurantOrder>>;
  /** Writes `next` when the stored version is still `expectedVersion` (`next.version` is the advanced one); false otherwise. */
  readonly updateWorkflow: (next: RestaurantOrder, expectedVersion: number) => Effect.Effect<boolean>;
  /**
   * Redacts the drop-off (point to 3 decimals, address masked) of the quotes and order snapshots
   * finished before `finishedBefore` and not redacted yet (retention): an order whose delivery was
   * delivered or cancelled before it, or that was rejected or cancelled before it without a
   * delivery, and its quote; a quote never placed that expired before it. Answers how many rows.
   */
  readonly redactDropoffsFinishedBefore: (finishedBefore: Date) => Effect.Effect<number>;
  /** Audits one operator's replay of a dead payment step (dl_payment_replays, append-only). */
  readonly recordPaymentReplay: (replay: {
    readonly id: string;
    readonly jobId: string;
    readonly step: "capture" | "void" | "resolve" | "release" | "refund";
    readonly orderId: string | null;
    readonly quoteId: string | null;
    readonly actorId: string;
    readonly reason: string;
    readonly at: Date;
  }) => Effect.Effect<void>;
}
export const OrdersRepository = Context.GenericTag<OrdersRepository>("domainkit/delivery/OrdersRepository");
