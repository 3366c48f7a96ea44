/**
 * Records the delivery kits build on: ids that sort in creation order on every store, and a
 * restaurant with a published menu, a quote and an order written through the module's own
 * repositories (a delivery belongs to an order, an order to a quote and a restaurant).
 */
import { Effect } from "effect";
import type { Courier } from "../../../core/delivery/model/Courier.js";
import { CourierId } from "../../../core/delivery/model/Courier.js";
import { DeliveryId, type Delivery } from "../../../core/delivery/model/Delivery.js";
import { MenuItemId } from "../../../core/delivery/model/MenuItem.js";
import { OrderId, type Order } from "../../../core/delivery/model/Order.js";
import { QuoteId, type Quote } from "../../../core/delivery/model/Quote.js";
import { RestaurantId, type Restaurant } from "../../../core/delivery/model/Restaurant.js";
import type { RestaurantOrder } from "../../../core/delivery/model/RestaurantOrder.js";
import { SettlementEntryId } from "../../../core/delivery/model/Ids.js";
import type { SettlementComponent, SettlementEntry } from "../../../core/delivery/model/SettlementEntry.js";
import { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { T0 } from "../Kit.js";

/** A time-ordered, UUID-shaped id: `uid("a", 2)` < `uid("a", 10)`, and ids of a kind sort together. */
export const uid = (kind: string, n: number): string => {
  const prefix = Buffer.from(kind).toString("hex").padEnd(8, "0").slice(0, 8);
  return `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
};

/** The fixtures' pickup point. */
export const pickup = { lat: 52.52, lng: 13.405 };

/**
 * Restaurant `n`, open, with menu version 1 of one item (written through the RestaurantsRepository);
 * by default at the pickup point with a 5 km zone, else `latOffsetDeg` north of it with `serviceRadiusM`.
 */
export const seedRestaurant = (n: number, place: { readonly latOffsetDeg?: number; readonly serviceRadiusM?: number } = {}) =>
  Effect.gen(function* () {
    const restaurants = yield* RestaurantsRepository;
    const restaurant: Restaurant = {
      id: RestaurantId.make(uid("rst", n)),
      name: `Restaurant ${n}`,
      lat: pickup.lat + (place.latOffsetDeg ?? 0),
      lng: pickup.lng,
      serviceRadiusM: place.serviceRadiusM ?? 5000,
      currency: "EUR",
      openingState: "open",
      serviceState: "active",
      merchantId: uid("mer", n),
      menuVersion: 0,
      createdBy: uid("usr", n),
      createdAt: T0,
      version: 1,
    };
    yield* restaurants.insertRestaurant(restaurant, { restaurantId: restaurant.id, userId: restaurant.createdBy, addedBy: restaurant.createdBy, createdAt: T0 });
    const itemId = MenuItemId.make(uid("itm", n));
    yield* restaurants.publishMenu(
      { restaurantId: restaurant.id, version: 1, publishedBy: restaurant.createdBy, publishedAt: T0 },
      [{ restaurantId: restaurant.id, menuVersion: 1, id: itemId, name: "Margherita", priceMinor: 900, modifiers: [] }],
      [{ restaurantId: restaurant.id, itemId, available: true, updatedAt: T0 }],
      0,
    );
    return { ...restaurant, menuVersion: 1, itemId };
  });

/** Order `n` of customer `uid("cus", n)` at `restaurant` (quote, snapshot, one line, authorized workflow). */
export const seedOrder = (restaurant: Effect.Effect.Success<ReturnType<typeof seedRestaurant>>, n: number) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const customerId = uid("cus", n);
    const snapshot = {
      dropoffLat: pickup.lat + 0.009,
      dropoffLng: pickup.lng,
      dropoffAddress: "Alexanderplatz 1",
      subtotalMinor: 900,
      deliveryFeeMinor: 299,
      serviceFeeMinor: 45,
      taxMinor: 90,
      totalMinor: 1334,
      currency: "EUR",
      scheduledFor: null,
    };
    const quote: Quote = {
      id: QuoteId.make(uid("quo", n)),
      customerId,
      restaurantId: restaurant.id,
      menuVersion: 1,
      lines: [{ item_id: restaurant.itemId, name: "Margherita", quantity: 1, unit_price_minor: 900, modifiers: [], tax_minor: 90, line_total_minor: 900 }],
      ...snapshot,
      expiresAt: new Date(T0.getTime() + 300_000),
      createdAt: T0,
    };
    yield* orders.insertQuote(quote);
    const order: Order = { id: OrderId.make(uid("ord", n)), customerId, restaurantId: restaurant.id, quoteId: quote.id, menuVersion: 1, merchantId: restaurant.merchantId, ...snapshot, placedAt: T0 };
    const workflow: RestaurantOrder = {
      orderId: order.id,
      restaurantId: restaurant.id,
      customerId,
      status: "authorized",
      paymentState: "authorized",
      paymentId: uid("pay", n),
      prepTimeMinutes: null,
      reason: null,
      acceptDeadline: new Date(T0.getTime() + 300_000),
      scheduledFor: null,
      deliveryId: null,
      version: 1,
      updatedAt: T0,
    };
    yield* orders.insertOrder(
      order,
      [{ orderId: order.id, lineNo: 1, itemId: restaurant.itemId, name: "Margherita", quantity: 1, unitPriceMinor: 900, modifiers: [], taxMinor: 90, lineTotalMinor: 900 }],
      workflow,
    );
    return order;
  });

/** The pending delivery `n` of `order` (no courier yet, version 1). */
export const deliveryRecord = (order: Order, n: number, overrides: Partial<Delivery> = {}): Delivery => ({
  id: DeliveryId.make(uid("dlv", n)),
  orderId: order.id,
  restaurantId: order.restaurantId,
  customerId: order.customerId,
  courierId: null,
  status: "pending",
  version: 1,
  pickupLat: pickup.lat,
  pickupLng: pickup.lng,
  dropoffLat: order.dropoffLat,
  dropoffLng: order.dropoffLng,
  dropoffAddress: order.dropoffAddress,
  createdAt: T0,
  updatedAt: T0,
  ...overrides,
});

/** Courier `n` (user `uid("usr", 100 + n)`), online `offset` degrees north of the pickup. */
export const courierRecord = (n: number, offset = 0.001 * n): Courier => ({
  id: CourierId.make(uid("cou", n)),
  userId: uid("usr", 100 + n),
  name: `Courier ${n}`,
  online: true,
  lat: pickup.lat + offset,
  lng: pickup.lng,
  locatedAt: T0,
  createdAt: T0,
});

/**
 * Restaurant `n`, its order `n` and that order's delivery `n` (pending unless `overrides` say
 * otherwise, e.g. delivered at some time), all stored; answers the order and the delivery.
 */
export const seedDelivery = (n: number, overrides: Partial<Delivery> = {}) =>
  Effect.gen(function* () {
    const restaurant = yield* seedRestaurant(n);
    const order = yield* seedOrder(restaurant, n);
    const { delivery } = yield* (yield* DispatchRepository).insertDelivery(deliveryRecord(order, n, overrides));
    return { order, delivery };
  });

/** The four balanced settlement components of `order` (delivery `deliveryId`), ids numbered from `firstId`. */
export const settlementOf = (order: Order, deliveryId: Delivery["id"], firstId: number, currency = order.currency): SettlementEntry[] => {
  const parts: ReadonlyArray<readonly [SettlementComponent, string, number]> = [
    ["customer_charge", `customer:${order.customerId}`, order.totalMinor],
    ["restaurant_payable", `restaurant:${order.restaurantId}`, -(order.subtotalMinor + order.taxMinor)],
    ["courier_payable", `courier:${uid("cou", 1)}`, -order.deliveryFeeMinor],
    ["platform_fee", "platform", -order.serviceFeeMinor],
  ];
  return parts.map(([component, account, amountMinor], i) => ({
    id: SettlementEntryId.make(uid("stl", firstId + i)),
    orderId: order.id,
    deliveryId,
    component,
    componentKey: `order:${order.id}:${component}`,
    account,
    amountMinor,
    currency,
    reverses: null,
    actorId: uid("usr", 1),
    reason: null,
    createdAt: T0,
  }));
};
