/**
 * Realtime access for the e-commerce module, each channel carrying only what its subscribers may
 * read over HTTP (security audit, second round, F1):
 * - `shop-order:<order id>`: an order's events (placed, confirmed, reservation expired, shipment
 *   dispatched, captured, cancelled, refund failed) to whoever may read the order: its customer,
 *   the guest holding its cart's token, support staff and owners of its store. Warehouse operators
 *   do not read orders (HTTP answers them 404), so they are refused it.
 * - `shop-store:<store id>`: every order event of the store and its fulfillment tasks' moves, to
 *   the store's owners only (they read every order over HTTP).
 * - `shop-fulfillment:<store id>:<user id>`: that operator's own tasks, to that user only while a
 *   warehouse operator (or owner) of the store; `shop-fulfillment:<store id>`: the store's
 *   unassigned tasks (the pool every operator's task list shows), to every warehouse operator and
 *   owner of the store. Both routed by the module's own realtime consumer (FulfillmentChannels.ts).
 *   No customer, total or payment. Another user's own channel is refused (not_found).
 * The customer does not learn who in the warehouse holds the order: task events never go on the
 * order's channel. Every subscription is re-checked with the same rules as HTTP, failing closed.
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import { loadVisibleOrder, requireStaffRole } from "./Access.js";
import { orderActorOf } from "./Callers.js";
import {
  FulfillmentTaskAssigned,
  FulfillmentTaskStatusChanged,
  OrderCancelled,
  OrderCaptured,
  OrderConfirmed,
  OrderPlaced,
  ReservationExpired,
  ReturnRefundFailed,
  ShipmentDispatched,
} from "./Events.js";
import type { StaffRoleName } from "./model/StaffRole.js";
import { OrderId, StoreId } from "./model/Ids.js";

/** The channel kinds. */
export const orderChannelKind = "shop-order";
export const storeChannelKind = "shop-store";
export const fulfillmentChannelKind = "shop-fulfillment";

const orderEventTypes = new Set<string>([OrderPlaced, OrderConfirmed, ReservationExpired, ShipmentDispatched, OrderCaptured, OrderCancelled, ReturnRefundFailed].map((d) => d.type));

/** Whether the principal may read the order now: as its customer or guest, or as support staff (owners hold every role). */
export const mayWatchOrder = (principal: Principal, channelId: string) =>
  Effect.gen(function* () {
    const orderId = OrderId.make(channelId);
    const actor = yield* orderActorOf(principal, orderId, "support");
    return yield* loadVisibleOrder(actor, orderId).pipe(Effect.as(true));
  }).pipe(Effect.catchAll(() => Effect.succeed(false)));

/** Whether the principal holds `role` (or owner) in the store now. */
const holdsStoreRole = (principal: Principal, channelId: string, role: StaffRoleName) =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : requireStaffRole(StoreId.make(channelId), principal.userId, role).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
      );

/** Whether the principal is an owner of the store now. */
export const mayWatchStore = (principal: Principal, channelId: string) => holdsStoreRole(principal, channelId, "owner");

/** The task channel of one operator of a store: `shop-fulfillment:<store id>:<user id>`. */
export const fulfillmentChannel = (storeId: string, userId: string): string => `${fulfillmentChannelKind}:${storeId}:${userId}`;

/** The channel of a store's unassigned tasks, which every operator's list shows: `shop-fulfillment:<store id>`. */
export const fulfillmentPoolChannel = (storeId: string): string => `${fulfillmentChannelKind}:${storeId}`;

/** The store and the user of a task channel's id (`<store id>:<user id>`), or null. */
const operatorOf = (channelId: string): { readonly storeId: string; readonly userId: string } | null => {
  const colon = channelId.indexOf(":");
  return colon <= 0 || colon === channelId.length - 1 ? null : { storeId: channelId.slice(0, colon), userId: channelId.slice(colon + 1) };
};

/**
 * Whether the principal is a warehouse operator (or owner) of the channel's store now and the
 * channel is their own or the store's unassigned pool (a channel id without a user).
 */
export const mayWatchFulfillment = (principal: Principal, channelId: string) => {
  if (principal.kind !== "user") return Effect.succeed(false);
  if (!channelId.includes(":")) return holdsStoreRole(principal, channelId, "warehouse_operator");
  const operator = operatorOf(channelId);
  return operator === null || operator.userId !== principal.userId ? Effect.succeed(false) : holdsStoreRole(principal, operator.storeId, "warehouse_operator");
};

const orderOf = Schema.decodeUnknownOption(Schema.Struct({ order_id: OrderId }));

/**
 * The channels of one commerce event without reading state: the order's and the owners'; a task's
 * moves go to the owners' here and to the operators' channels through FulfillmentChannels.ts.
 * None for other modules' events.
 */
export const commerceChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  if (event.type === FulfillmentTaskAssigned.type || event.type === FulfillmentTaskStatusChanged.type) {
    return [`${storeChannelKind}:${event.tenant_id}`];
  }
  if (!orderEventTypes.has(event.type)) return [];
  const orderId = Option.getOrNull(orderOf(event.data))?.order_id ?? null;
  return [...(orderId === null ? [] : [`${orderChannelKind}:${orderId}`]), `${storeChannelKind}:${event.tenant_id}`];
};
