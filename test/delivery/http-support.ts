/**
 * HTTP test support of the delivery module: the reference server (delivery under /v1/delivery,
 * money through the in-process payment module), per-user JSON clients that mint their own
 * tokens, a realtime client, and the walk-through's setup steps as requests.
 */
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import type { Config } from "../../hosts/Config.js";
import type { ServerOptions } from "../../hosts/ReferenceServer.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import type { Dialect, HasTeardown, TapTest } from "../support/databases.js";
import { connectRealtimeClient } from "../support/realtimeClient.js";

/** A JSON answer. */
export interface Answer {
  readonly status: number;
  // Test bodies are read loosely: each assertion names the fields it checks.
  readonly body: Record<string, any>;
  readonly headers: Headers;
}

let keySeq = 0;
/** A fresh Idempotency-Key. */
export const freshKey = (): string => `dl-key-${process.pid}-${++keySeq}-${Math.random().toString(36).slice(2)}`;

/** A client acting as one user (or anonymously) against `base` (the server URL plus the mount prefix). */
export const clientOf = (base: string, userId: string | null) => {
  let token: string | undefined;
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    if (userId !== null && token === undefined) token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 3600 });
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, any>), headers: response.headers };
  };
  return {
    userId: userId ?? "",
    get: (path: string) => request("GET", path),
    post: (path: string, body?: unknown, idempotencyKey?: string) =>
      request("POST", path, body ?? {}, idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey }),
    put: (path: string, body: unknown) => request("PUT", path, body),
    patch: (path: string, body: unknown) => request("PATCH", path, body),
    delete: (path: string) => request("DELETE", path),
    token: async () => (token ??= await mintToken({ secret: hostSecret, userId: userId ?? "", ttlSeconds: 3600 })),
  };
};
export type Client = ReturnType<typeof clientOf>;

/** The reference server with delivery mounted at /v1/delivery; `env` adds DELIVERY_* settings. */
export const startDeliveryServer = async <P>(t: HasTeardown, dialect: Dialect, env: Record<string, string> = {}, options: ServerOptions<P> = {}) => {
  const config: Config = await testConfig(dialect, t, { LOG_LEVEL: "error", ...env });
  const { server, logText } = await startReferenceServer(t, config, options);
  const base = `${server.url}/v1/delivery`;
  return { server, base, logText, as: (userId: string = randomUUID()) => clientOf(base, userId), anonymous: clientOf(base, null) };
};

/** A restaurant (created, menu published, opened; in EUR unless told) of a fresh owner near `here`. */
export const here = { lat: 52.52, lng: 13.405 };

export const openRestaurant = async (owner: Client, t: TapTest, options: { readonly currency?: string } = {}) => {
  const created = await owner.post("/restaurants", { name: "Trattoria", lat: here.lat, lng: here.lng, service_radius_m: 5000, currency: options.currency ?? "EUR" });
  t.equal(created.status, 201, "restaurant created");
  const restaurantId = String(created.body.id);
  const menu = await owner.post(`/restaurants/${restaurantId}/menus`, {
    items: [
      { name: "Margherita", price_minor: 900, modifiers: [{ name: "Extra cheese", price_minor: 150 }] },
      { name: "Lemonade", price_minor: 350 },
    ],
  });
  t.equal(menu.status, 201, "menu published");
  const opened = await owner.post(`/restaurants/${restaurantId}/open`);
  t.equal(opened.status, 200, "restaurant opened");
  const [pizza, drink] = menu.body.items as Array<Record<string, any>>;
  return { restaurantId, menuVersion: Number(menu.body.version), pizza: pizza!, drink: drink! };
};
export type OpenRestaurant = Awaited<ReturnType<typeof openRestaurant>>;

/** A quote body of one pizza with extra cheese and two lemonades, 1 km north. */
export const quoteBody = (r: OpenRestaurant) => ({
  restaurant_id: r.restaurantId,
  menu_version: r.menuVersion,
  lines: [
    { item_id: r.pizza.id, quantity: 1, modifier_ids: [r.pizza.modifiers[0].id] },
    { item_id: r.drink.id, quantity: 2 },
  ],
  dropoff: { lat: here.lat + 0.009, lng: here.lng, address: "Alexanderplatz 1" },
});

/** A customer's order of `quoteBody(r)`, placed and accepted by the restaurant's owner: its delivery's id. */
export const acceptedOrderDelivery = async (customer: Client, owner: Client, r: OpenRestaurant, prepTimeMinutes = 5): Promise<string> => {
  const placed = await customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: "pm_card_visa" }, freshKey());
  return String((await owner.post(`/restaurant-orders/${String(placed.body.id)}/accept`, { prep_time_minutes: prepTimeMinutes })).body.delivery_id);
};

/** A courier registered, online and located `offset` degrees north of the restaurant. */
export const onlineCourier = async (courier: Client, offset = 0.001) => {
  const registered = await courier.post("/couriers", { name: "Courier" });
  await courier.post("/couriers/me/online");
  await courier.post("/couriers/me/locations", { samples: [{ lat: here.lat + offset, lng: here.lng, recorded_at: new Date(Date.now() - 1000).toISOString() }] });
  return String(registered.body.id);
};

export { eventually } from "../support/eventually.js";

/** A realtime client that keeps every message it receives (test/support/realtimeClient.ts). */
export const connectRealtime = connectRealtimeClient;

/** The courier accepts the first offer they were made (asserted); answers the accept. */
export const acceptFirstOffer = async (t: TapTest, courier: Client): Promise<Answer> => {
  const offer = (await courier.get("/couriers/me/offers")).body.data[0];
  const accepted = await courier.post(`/courier-offers/${String(offer?.id)}/accept`, {}, freshKey());
  t.equal(accepted.status, 200, "the courier is assigned");
  return accepted;
};

/** A realtime client of `client` subscribed to `channel` (asserted), closed at teardown. */
export const subscribedTo = async (t: TapTest, serverUrl: string, client: Client, channel: string) => {
  const live = await connectRealtime(serverUrl, await client.token());
  t.teardown(() => live.close());
  live.send({ type: "subscribe", channel });
  t.match(await live.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" }, `subscribed to ${channel}`);
  return live;
};

/** A delivery server with a restaurant, a customer's accepted order and a courier assigned to it (asserted). */
export const assignedDelivery = async (t: TapTest, dialect: Dialect) => {
  const { server, as } = await startDeliveryServer(t, dialect);
  const owner = as();
  const customer = as();
  const courier = as();
  const r = await openRestaurant(owner, t);
  const courierId = await onlineCourier(courier);
  const deliveryId = await acceptedOrderDelivery(customer, owner, r);
  await acceptFirstOffer(t, courier);
  return { server, owner, customer, courier, restaurant: r, courierId, deliveryId };
};
