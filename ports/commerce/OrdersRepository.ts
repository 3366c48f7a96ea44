/**
 * Orders (never deleted; states moved by conditional updates), their immutable lines, timeline,
 * payment record, shipments, returns and the idempotency records of checkout.
 */
import { Context, type Effect } from "effect";
import type { CheckoutRequest } from "../../core/commerce/model/CheckoutRequest.js";
import type { Order, OrderLine, OrderStatus, OrderTimelineEntry } from "../../core/commerce/model/Order.js";
import type { FulfillmentTask } from "../../core/commerce/model/FulfillmentTask.js";
import type { OrderNote } from "../../core/commerce/model/OrderNote.js";
import type { OrderPayment, OrderPaymentStatus } from "../../core/commerce/model/OrderPayment.js";
import type { Return, ReturnStatus } from "../../core/commerce/model/Return.js";
import type { Shipment } from "../../core/commerce/model/Shipment.js";

/** What changes with a status move. */
export interface OrderChange {
  readonly paymentIntentRef?: string;
}

export interface OrdersRepository {
  /**
   * Records the checkout request, unless one with the same scope and key exists: then answers
   * that one (the payload hash is computed by the adapter from `payload`).
   */
  readonly claimCheckout: (
    request: Omit<CheckoutRequest, "payloadHash">,
    payload: string,
  ) => Effect.Effect<{ readonly claimed: true } | { readonly claimed: false; readonly existing: CheckoutRequest; readonly samePayload: boolean }>;
  readonly insertOrder: (order: Order, lines: ReadonlyArray<OrderLine>) => Effect.Effect<void>;
  readonly findOrder: (id: string) => Effect.Effect<Order | null>;
  readonly linesOf: (orderId: string) => Effect.Effect<ReadonlyArray<OrderLine>>;
  /** Moves the order to `to` if its status is one of `from` (version + 1); the order after, or null. */
  readonly transitionOrder: (
    id: string,
    from: ReadonlyArray<OrderStatus>,
    to: OrderStatus,
    now: Date,
    change?: OrderChange,
  ) => Effect.Effect<Order | null>;
  /** The customer's orders, newest first, after `beforeId`. */
  readonly ordersOfCustomer: (customerId: string, beforeId: string | null, limit: number) => Effect.Effect<ReadonlyArray<Order>>;
  readonly appendTimeline: (entry: OrderTimelineEntry) => Effect.Effect<void>;
  /**
   * The order's timeline entries after `afterId` in entry order (by id), at most `limit`; with
   * `withFulfillment` false the `fulfillment.*` entries are left out in the query, before the limit.
   */
  readonly timelinePage: (
    orderId: string,
    query: { readonly afterId: string | null; readonly withFulfillment: boolean; readonly limit: number },
  ) => Effect.Effect<ReadonlyArray<OrderTimelineEntry>>;
  /** Keeps a shopper's free text of the order (its timeline entry refers to it by id). */
  readonly insertNote: (note: OrderNote) => Effect.Effect<void>;
  readonly notesOf: (orderId: string) => Effect.Effect<ReadonlyArray<OrderNote>>;
  /** The order's notes among `ids` (a page of the timeline names at most its length). */
  readonly notesNamed: (orderId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<OrderNote>>;
  readonly insertPayment: (payment: OrderPayment) => Effect.Effect<void>;
  readonly findPayment: (orderId: string) => Effect.Effect<OrderPayment | null>;
  /**
   * Saves the payment record when its status is still `from`, the one its writer read; whether it
   * did. A writer holding an old copy (a capture answered twice, a late authorization answer) moves
   * nothing, so a refund or a capture recorded meanwhile is never written over.
   */
  readonly updatePayment: (payment: OrderPayment, from: OrderPaymentStatus) => Effect.Effect<boolean>;
  /** Adds `amountMinor` to the order payment's refunded total in one statement (concurrent refunds each count). */
  readonly addRefundedMinor: (orderId: string, amountMinor: number, now: Date) => Effect.Effect<void>;
  /** Inserts the shipment unless its carrier's tracking number is already another shipment's (false then). */
  readonly insertShipment: (shipment: Shipment) => Effect.Effect<boolean>;
  readonly shipmentsOf: (orderId: string) => Effect.Effect<ReadonlyArray<Shipment>>;
  /** The newest dispatched or delivered shipment with this carrier and tracking number. */
  readonly findShipmentByTracking: (carrier: string, trackingNumber: string) => Effect.Effect<Shipment | null>;
  /** dispatched → delivered if still dispatched; false otherwise. */
  readonly markShipmentDelivered: (id: string) => Effect.Effect<boolean>;
  /** Dispatched (not yet delivered) shipments by id after `afterId`, at most `limit`. */
  readonly shipmentsInTransit: (afterId: string | null, limit: number) => Effect.Effect<ReadonlyArray<Shipment>>;
  readonly insertReturn: (ret: Return) => Effect.Effect<void>;
  /**
   * Adds `quantity` to the units returned of the order line if the total stays within the line's
   * quantity (a conditional write, also a database constraint); false when it would not.
   */
  readonly claimReturnedQuantity: (orderLineId: string, quantity: number) => Effect.Effect<boolean>;
  readonly returnsOf: (orderId: string) => Effect.Effect<ReadonlyArray<Return>>;
  /** The order's returns among `ids` (a page of the timeline names at most its length). */
  readonly returnsNamed: (orderId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Return>>;
  readonly findReturn: (id: string) => Effect.Effect<Return | null>;
  /** Moves the return to `to` if it is still in `from` (version + 1); the return after, or null. */
  readonly transitionReturn: (id: string, from: ReturnStatus, to: ReturnStatus, now: Date) => Effect.Effect<Return | null>;
  /**
   * refund_requested → refund_failed if the return still waits for refund attempt `attempt` (a
   * refusal of an older attempt moves nothing); the return after, or null.
   */
  readonly failReturnRefund: (id: string, attempt: number, now: Date) => Effect.Effect<Return | null>;
  /**
   * refund_failed → refund_requested with refund attempt `attempt + 1`, if the return is still
   * refused at attempt `attempt` (of requests made at once exactly one moves it); the return after, or null.
   */
  readonly requestReturnRefundAgain: (id: string, attempt: number, now: Date) => Effect.Effect<Return | null>;
  /**
   * Minimizes guest orders in a final state last changed before `before` and not minimized yet
   * (with or without an e-mail): e-mail removed, the address reduced to its country, the order's
   * notes and its returns' reasons cleared, marked minimized at `now`; at most `limit`; how many.
   */
  readonly redactGuestOrders: (before: Date, limit: number, now: Date) => Effect.Effect<number>;
  /** Records that `consumer` received `eventId` (unique); false when it already had. */
  readonly receiveEvent: (consumer: string, eventId: string, at: Date) => Effect.Effect<boolean>;
  /** Inserts the order's task; false when the order already has one (unique per order). */
  readonly insertFulfillmentTask: (task: FulfillmentTask) => Effect.Effect<boolean>;
  /**
   * The store's tasks in `status`, oldest first (by id), after `afterId`, at most `limit`; with
   * `availableTo`, only the tasks assigned to that user and the unassigned ones; with
   * `assignedTo`, only the tasks assigned to that user.
   */
  readonly fulfillmentTasks: (
    storeId: string,
    query: {
      readonly status: FulfillmentTask["status"];
      readonly availableTo?: string;
      readonly assignedTo?: string;
      readonly afterId: string | null;
      readonly limit: number;
    },
  ) => Effect.Effect<ReadonlyArray<FulfillmentTask>>;
  readonly findFulfillmentTask: (id: string) => Effect.Effect<FulfillmentTask | null>;
  readonly fulfillmentTaskOfOrder: (orderId: string) => Effect.Effect<FulfillmentTask | null>;
  /**
   * Moves the open task's assignee from `from` to `to` (null: unassigned) in one conditional
   * update, `assignedAt` set with it; the task after, or null when it is not open or its assignee
   * is no longer `from` (exactly one of racing takes wins).
   */
  readonly moveFulfillmentTaskAssignee: (id: string, from: string | null, to: string | null, at: Date) => Effect.Effect<FulfillmentTask | null>;
  /** Marks the order's task done. */
  readonly completeFulfillmentTask: (orderId: string) => Effect.Effect<void>;
  /** Holds the order row until the transaction ends (Postgres FOR UPDATE; SQLite writers are serialized). */
  readonly lockOrder: (id: string) => Effect.Effect<void>;
}
export const OrdersRepository = Context.GenericTag<OrdersRepository>("domainkit/commerce/OrdersRepository");
