/**
 * Realtime access for the e-commerce module: `shop-order:<order id>` carries an order's events
 * (placed, confirmed, reservation expired, shipment dispatched, cancelled) to whoever may read
 * the order over HTTP (its customer, the guest holding its cart's token, staff of its store with
 * the support or warehouse role); `shop-store:<store id>` carries every order event of a store
 * to its warehouse operators, and the moves of its fulfillment tasks (FulfillmentTaskAssigned: taken,
 * assigned, released), which only that channel carries: the order's customer does not learn who in
 * the warehouse holds the order. Both are re-checked with the same rules as HTTP, failing closed.
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import { loadVisibleOrder, requireStaffRole } from "./Access.js";
import { orderActorOf } from "./Callers.js";
import { FulfillmentTaskAssigned, OrderCancelled, OrderCaptured, OrderConfirmed, OrderPlaced, ReservationExpired, ReturnRefundFailed, ShipmentDispatched } from "./Events.js";
import { OrderId, StoreId } from "./model/Ids.js";

/** The channel kinds. */
export const orderChannelKind = "shop-order";
export const storeChannelKind = "shop-store";

const orderEventTypes = new Set<string>([OrderPlaced, OrderConfirmed, ReservationExpired, ShipmentDispatched, OrderCaptured, OrderCancelled, ReturnRefundFailed].map((d) => d.type));

/** Whether the principal may read the order now: as its customer or guest, or as support or warehouse staff. */
export const mayWatchOrder = (principal: Principal, channelId: string) =>
  Effect.gen(function* () {
    const orderId = OrderId.make(channelId);
    for (const role of ["support", "warehouse_operator"] as const) {
      const actor = yield* orderActorOf(principal, orderId, role);
      const seen = yield* loadVisibleOrder(actor, orderId).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );
      if (seen) return true;
      if (actor.kind !== "staff") return false;
    }
    return false;
  }).pipe(Effect.catchAll(() => Effect.succeed(false)));

/** Whether the principal is a warehouse operator (or owner) of the store now. */
export const mayWatchStore = (principal: Principal, channelId: string) =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : requireStaffRole(StoreId.make(channelId), principal.userId, "warehouse_operator").pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );

const orderOf = Schema.decodeUnknownOption(Schema.Struct({ order_id: OrderId }));

/** The channels of one commerce event; none for other modules' events. */
export const commerceChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  if (event.type === FulfillmentTaskAssigned.type) return [`${storeChannelKind}:${event.tenant_id}`];
  if (!orderEventTypes.has(event.type)) return [];
  const orderId = Option.getOrNull(orderOf(event.data))?.order_id ?? null;
  return [...(orderId === null ? [] : [`${orderChannelKind}:${orderId}`]), `${storeChannelKind}:${event.tenant_id}`];
};
