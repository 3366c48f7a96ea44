/**
 * Food delivery hot spots beyond ingestion and the first discovery page:
 *
 * `delivery-accept-contention`: many couriers race for one delivery. Per round, one accepted
 * order's pending delivery holds a live offer for each of BENCH_DELIVERY_COURIERS couriers
 * (default 20; written through the dispatch repository, since a dispatch round offers only
 * DELIVERY_OFFER_FANOUT); all of them POST /courier-offers/:id/accept at once. The setup checks
 * that exactly one wins per round (the others 409) and prints the accept latency p50/p99 over
 * every request. The HTTP row then measures GET /couriers/me/offers of those couriers.
 *
 * `delivery-discovery-10k-page1` / `-page100`: GET /restaurants among 10,000 open restaurants
 * that all serve the point (written through the repository in batches, one merchant id each),
 * page 1 vs page 100 of 20: a keyset page costs the same wherever it is.
 *
 * `delivery-tracking-fanout`: one active delivery whose customer has BENCH_FANOUT_SUBSCRIBERS
 * (default 1,000) websocket subscriptions of `delivery:<id>`; the assigned courier posts a
 * location that moves it, one at a time, and each CourierPositionUpdated's arrival is timed per
 * subscriber from the POST (HTTP commit, relay, bus, fan-out): p50/p99 printed. The HTTP row
 * then measures the courier's location posts while the subscribers stay connected.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Effect } from "effect";
import WebSocket from "ws";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { acceptOrder } from "../../core/delivery/AcceptOrder.js";
import { listMyOffers, recordLocations, registerCourier, setCourierOnline } from "../../core/delivery/Couriers.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { CourierOfferId } from "../../core/delivery/model/CourierOffer.js";
import { MenuItemId } from "../../core/delivery/model/MenuItem.js";
import { RestaurantId, type Restaurant } from "../../core/delivery/model/Restaurant.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { quoteOrder } from "../../core/delivery/QuoteOrder.js";
import { createRestaurant, setOpening } from "../../core/delivery/Restaurants.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { Transactions } from "../../ports/Transactions.js";
import type { Principal } from "../../ports/Principal.js";
import type { BenchRequest, BenchTarget, Scenario } from "../Scenario.js";

const say = (line: string): void => void process.stderr.write(`# bench: ${line}\n`);
const report = (line: string): void => {
  say(line);
  process.stdout.write(`${line}\n`);
};
const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const envInt = (name: string, fallback: number, max: number): number => {
  const value = Number(process.env[name] ?? String(fallback));
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer from 1 to ${max}`);
  return value;
};
const point = { lat: 52.52, lng: 13.405 };
const user = (userId: string): Principal => ({ kind: "user", userId });
const http = async (target: BenchTarget, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${target.url}/v1/delivery${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

/** An open restaurant of a fresh owner at the point, with one dish (through the core, as the routes do). */
const openKitchen = (target: BenchTarget) =>
  target.server.core.runtime.runPromise(
    Effect.gen(function* () {
      const owner = user(randomUUID());
      const restaurant = yield* createRestaurant(owner, { name: "Bench kitchen", lat: point.lat, lng: point.lng, serviceRadiusM: 5000, currency: "EUR" });
      const menu = yield* publishMenu(owner, restaurant.id, [{ name: "Soup", priceMinor: 650 }]);
      yield* setOpening(owner, restaurant.id, "open");
      return { owner, restaurant, itemId: menu.items[0]!.id, menuVersion: menu.version };
    }),
  );

/** An authorized order of a fresh customer at the kitchen, accepted by its owner: its pending delivery. */
const acceptedDelivery = (target: BenchTarget, kitchen: Awaited<ReturnType<typeof openKitchen>>, customerId = randomUUID()) =>
  target.server.core.runtime.runPromise(
    Effect.gen(function* () {
      const quote = yield* quoteOrder(user(customerId), {
        restaurantId: kitchen.restaurant.id,
        menuVersion: kitchen.menuVersion,
        lines: [{ itemId: kitchen.itemId, quantity: 1, modifierIds: [] }],
        dropoff: { lat: point.lat + 0.005, lng: point.lng, address: "Bench street 1" },
      });
      const placed = yield* placeOrder(user(customerId), { quoteId: quote.id, paymentMethod: "pm_card_visa" });
      return (yield* acceptOrder(kitchen.owner, placed.order.id, { prepTimeMinutes: 10 })).delivery;
    }),
  );

/** Registered, online couriers near the point, with their tokens. */
const onlineCouriers = async (target: BenchTarget, count: number) => {
  const couriers = [];
  for (let i = 0; i < count; i++) {
    const userId = randomUUID();
    const courier = await target.server.core.runtime.runPromise(
      Effect.gen(function* () {
        const registered = yield* registerCourier(user(userId), { name: `Bench courier ${i}` });
        yield* setCourierOnline(user(userId), true);
        yield* recordLocations(user(userId), [{ lat: point.lat + 0.0001 * (i + 1), lng: point.lng, recordedAt: new Date(Date.now() - 1000) }]);
        return registered;
      }),
    );
    couriers.push({ userId, courier, token: await mintToken({ secret: target.jwtSecret, userId, ttlSeconds: 3600 }) });
  }
  return couriers;
};

/** Contention rounds measured in the setup. */
const contentionRounds = 10;

export const deliveryAcceptContention: Scenario = {
  name: "delivery-accept-contention",
  description: "POST /v1/delivery/courier-offers/:id/accept by many couriers at once for one delivery (setup prints p50/p99); HTTP row: GET /couriers/me/offers",
  setup: async (target) => {
    const count = envInt("BENCH_DELIVERY_COURIERS", 20, 500);
    const kitchen = await openKitchen(target);
    const couriers = await onlineCouriers(target, count);
    const latencies: number[] = [];
    for (let round = 0; round < contentionRounds; round++) {
      const delivery = await acceptedDelivery(target, kitchen);
      // Every courier gets a live offer on this delivery (a dispatch round offers only the fan-out).
      const offers = await target.server.core.runtime.runPromise(
        Effect.gen(function* () {
          const existing = new Set((yield* (yield* DispatchRepository).offersOfDelivery(delivery.id)).map((o) => o.courierId));
          const now = new Date();
          const fresh = couriers
            .filter((c) => !existing.has(c.courier.id))
            .map((c) => ({ id: CourierOfferId.make(randomUUID()), deliveryId: delivery.id, courierId: c.courier.id, status: "offered" as const, round: 1, expiresAt: new Date(now.getTime() + 60_000), createdAt: now, decidedAt: null }));
          yield* (yield* Transactions).run((yield* DispatchRepository).insertOffers(fresh));
          return yield* Effect.forEach(couriers, (c) => Effect.map(listMyOffers(user(c.userId)), (list) => ({ c, offer: list.find((o) => o.deliveryId === delivery.id) })));
        }),
      );
      const answers = await Promise.all(
        offers.map(async ({ c, offer }) => {
          const started = performance.now();
          const answer = await http(target, c.token, "POST", `/courier-offers/${offer!.id}/accept`, {}, { "idempotency-key": randomUUID() });
          latencies.push(performance.now() - started);
          return answer.status;
        }),
      );
      const won = answers.filter((s) => s === 200).length;
      if (won !== 1 || answers.filter((s) => s === 409).length !== count - 1) throw new Error(`delivery-accept-contention: round ${round} answered ${answers.join(",")}`);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    report(
      `delivery-accept-contention [${target.dialect}]: ${contentionRounds} deliveries x ${count} couriers accepting at once, one winner each; accept latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`,
    );
    const requests: BenchRequest[] = couriers.map((c) => ({ method: "GET", path: "/v1/delivery/couriers/me/offers", headers: { authorization: `Bearer ${c.token}` } }));
    return { requests, metrics: { "accept p50 ms": percentile(sorted, 50), "accept p99 ms": percentile(sorted, 99) } };
  },
};

/** Restaurants of the deep discovery scenarios. */
const manyRestaurants = 10_000;
/** Restaurants per setup transaction. */
const seedBatch = 500;

/** Writes `manyRestaurants` open restaurants that all serve the point (once per server). */
const seeded = new WeakMap<object, Promise<void>>();
const seedManyRestaurants = (target: BenchTarget): Promise<void> => {
  const existing = seeded.get(target.server);
  if (existing !== undefined) return existing;
  const started = Date.now();
  const run = (async () => {
    for (let from = 0; from < manyRestaurants; from += seedBatch) {
      await target.server.core.runtime.runPromise(
          Effect.flatMap(Transactions, (tx) =>
            tx.run(
              Effect.forEach(
                Array.from({ length: Math.min(seedBatch, manyRestaurants - from) }, (_, k) => from + k),
                (i) =>
                  Effect.gen(function* () {
                    const repo = yield* RestaurantsRepository;
                    const ownerId = randomUUID();
                    const at = new Date();
                    // A 100 x 100 grid of about 11 m steps: all within 1.6 km of the point.
                    const restaurant: Restaurant = {
                      id: RestaurantId.make(randomUUID()),
                      name: `Kitchen ${i}`,
                      lat: point.lat - 0.005 + (i % 100) * 0.0001,
                      lng: point.lng - 0.005 + Math.floor(i / 100) * 0.0001,
                      serviceRadiusM: 5000,
                      currency: "EUR",
                      openingState: "open",
                      serviceState: "active",
                      merchantId: `bench-merchant-${i}`,
                      menuVersion: 0,
                      createdBy: ownerId,
                      createdAt: at,
                      version: 1,
                    };
                    yield* repo.insertRestaurant(restaurant, { restaurantId: restaurant.id, userId: ownerId, addedBy: ownerId, createdAt: at });
                    const itemId = MenuItemId.make(randomUUID());
                    yield* repo.publishMenu(
                      { restaurantId: restaurant.id, version: 1, publishedBy: ownerId, publishedAt: at },
                      [{ restaurantId: restaurant.id, menuVersion: 1, id: itemId, name: "Soup", priceMinor: 650, modifiers: [] }],
                      [{ restaurantId: restaurant.id, itemId, available: true, updatedAt: at }],
                      0,
                    );
                  }),
                { discard: true },
              ),
            ),
          ),
      );
    }
    say(`delivery discovery: ${manyRestaurants} restaurants written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })();
  seeded.set(target.server, run);
  return run;
};

const discoveryPath = `/v1/delivery/restaurants?lat=${point.lat}&lng=${point.lng}&limit=20`;

/** The cursor of page `page` (1-based) of the deep discovery list. */
const cursorOfPage = async (target: BenchTarget, page: number): Promise<string | null> => {
  let cursor: string | null = null;
  for (let p = 1; p < page; p++) {
    const response = await fetch(`${target.url}${discoveryPath}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
    const body = (await response.json()) as { next_cursor: string | null; data: unknown[] };
    if (body.next_cursor === null) throw new Error(`delivery discovery: only ${p} pages`);
    cursor = body.next_cursor;
  }
  return cursor;
};

const discoveryPage = (page: number): Scenario => ({
  name: `delivery-discovery-10k-page${page}`,
  description: `GET /v1/delivery/restaurants?lat&lng page ${page} of 20 among ${manyRestaurants} open restaurants serving the point (anonymous)`,
  setup: async (target) => {
    await seedManyRestaurants(target);
    const cursor = await cursorOfPage(target, page);
    return { requests: [{ method: "GET", path: cursor === null ? discoveryPath : `${discoveryPath}&cursor=${encodeURIComponent(cursor)}` }] };
  },
});

export const deliveryDiscoveryFirstPage = discoveryPage(1);
export const deliveryDiscoveryDeepPage = discoveryPage(100);

/** Position updates measured one after the other in the tracking fan-out. */
const trackingRounds = 20;
const trackingTimeoutMs = 15_000;

interface TrackingSubscriber {
  readonly socket: WebSocket;
  expect: { lat: number; arrived: (at: number) => void } | undefined;
}

const subscribeTracking = (target: BenchTarget, token: string, deliveryId: string): Promise<TrackingSubscriber> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(`${target.url.replace(/^http/, "ws")}/v1/realtime`, { headers: { authorization: `Bearer ${token}` } });
    const subscriber: TrackingSubscriber = { socket, expect: undefined };
    const channel = `delivery:${deliveryId}`;
    socket.once("open", () => socket.send(JSON.stringify({ type: "subscribe", channel })));
    socket.once("error", reject);
    socket.on("message", (raw) => {
      const at = performance.now();
      const message = JSON.parse(String(raw));
      const expect = subscriber.expect;
      if (message.type === "subscribed" && message.channel === channel) resolve(subscriber);
      else if (message.type === "error") reject(new Error(`subscribe refused: ${message.code}`));
      else if (expect !== undefined && message.type === "event" && message.event?.type === "CourierPositionUpdated" && message.event.data?.lat === expect.lat) {
        subscriber.expect = undefined;
        expect.arrived(at);
      }
    });
  });

export const deliveryTrackingFanout: Scenario = {
  name: "delivery-tracking-fanout",
  description: "POST /v1/delivery/couriers/me/locations of an assigned courier with 1,000 subscriptions of its delivery:<id> (setup prints p50/p99 fan-out latency)",
  setup: async (target, { connections }) => {
    const count = envInt("BENCH_FANOUT_SUBSCRIBERS", 1000, 10_000);
    const kitchen = await openKitchen(target);
    await onlineCouriers(target, 1);
    const customerId = randomUUID();
    const delivery = await acceptedDelivery(target, kitchen, customerId);
    // Dispatch positions are rounded (about 100 m), so this courier ties with those earlier
    // scenarios left online at the point: the courier that got an offer takes the delivery.
    const offered = await target.server.core.database.db
      .selectFrom("dl_courier_offers as o")
      .innerJoin("dl_couriers as c", "c.id", "o.courier_id")
      .select(["o.id as offer_id", "c.user_id"])
      .where("o.delivery_id", "=", delivery.id)
      .where("o.status", "=", "offered")
      .executeTakeFirstOrThrow();
    const courier = { token: await mintToken({ secret: target.jwtSecret, userId: String(offered.user_id), ttlSeconds: 3600 }) };
    const won = await http(target, courier.token, "POST", `/courier-offers/${String(offered.offer_id)}/accept`, {}, { "idempotency-key": randomUUID() });
    if (won.status !== 200) throw new Error(`delivery-tracking-fanout: courier accept answered ${won.status}`);
    const customerToken = await mintToken({ secret: target.jwtSecret, userId: customerId, ttlSeconds: 3600 });
    const subscribers: TrackingSubscriber[] = [];
    for (let from = 0; from < count; from += 100) {
      subscribers.push(...(await Promise.all(Array.from({ length: Math.min(100, count - from) }, () => subscribeTracking(target, customerToken, delivery.id)))));
    }
    const latencies: number[] = [];
    let step = 0;
    // Each post moves the courier about 111 m north, so the rounded (3 decimals) position changes.
    const nextSample = () => {
      step += 1;
      return { lat: Number((point.lat + 0.001 * (step % 500) + 0.001).toFixed(3)), lng: point.lng, recorded_at: new Date(Date.now() - 500 + step).toISOString() };
    };
    for (let round = 0; round < trackingRounds; round++) {
      const sample = nextSample();
      const started = performance.now();
      const delivered = Promise.all(
        subscribers.map((s) => new Promise<void>((resolve) => (s.expect = { lat: sample.lat, arrived: (at) => (latencies.push(at - started), resolve()) }))),
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`delivery-tracking-fanout: a position was not delivered to all ${count} subscribers within ${trackingTimeoutMs} ms`)), trackingTimeoutMs);
      });
      const posted = await http(target, courier.token, "POST", "/couriers/me/locations", { samples: [sample] });
      if (posted.status >= 300) throw new Error(`delivery-tracking-fanout: location post answered ${posted.status}`);
      await Promise.race([delivered, timeout]).finally(() => clearTimeout(timer));
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    report(
      `delivery-tracking-fanout [${target.dialect}]: ${trackingRounds} positions x ${count} subscribers, fan-out latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms (from POST sent)`,
    );
    const requests: BenchRequest[] = Array.from({ length: connections * 50 }, () => {
      const sample = nextSample();
      return {
        method: "POST",
        path: "/v1/delivery/couriers/me/locations",
        headers: { authorization: `Bearer ${courier.token}`, "content-type": "application/json" },
        body: JSON.stringify({ samples: [sample] }),
      };
    });
    return { requests, metrics: { "fan-out p50 ms": percentile(sorted, 50), "fan-out p99 ms": percentile(sorted, 99) } };
  },
};
