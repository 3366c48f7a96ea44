/**
 * Food delivery under load. `delivery-locations`: POST /v1/delivery/couriers/me/locations, one
 * sample per batch, spread over many couriers (authentication, the courier lookup, the location
 * budget, sealing the position with AES-256-GCM, the sample insert, the courier's dispatch
 * position update and the active-delivery read). Its raw baseline is the same two writes on the
 * bare driver (insert one sealed-size sample row; update the courier's position), so the
 * overhead of the stack is a ratio in the same run. `delivery-discovery`: the first page of
 * GET /v1/delivery/restaurants for a drop-off point among 200 open restaurants, anonymous (the
 * spec's public discovery), compared with the Koa floor.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Effect } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { registerCourier } from "../../core/delivery/Couriers.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { createRestaurant, setOpening } from "../../core/delivery/Restaurants.js";
import { measureOps } from "../RawLoop.js";
import { inOrder, kernelSql, numbered, rawRunner } from "../RawStatements.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/**
 * Couriers per HTTP connection: each courier spends its own location budget (600 batches per
 * 10 minutes), so a plan spread over this many couriers runs for minutes without a 429.
 */
const couriersPerConnection = 100;
/**
 * Batches per courier in the plan (each a later `recorded_at`, so every batch moves the courier):
 * 40,000 requests with 10 connections, enough for a 5 s run and its 5 s warm-up at 4,000 a second.
 */
const batchesPerCourier = 40;

/** The size of a sealed position: 12-byte IV, 16-byte tag and the ciphertext of `[lat,lng]`. */
const sealedBytes = 12 + 16 + 20;

/** Ingesting location batches over HTTP, against the bare sample insert and position update. */
export const deliveryLocations: Scenario = {
  name: "delivery-locations",
  description: "POST /v1/delivery/couriers/me/locations (1 sample): budget, seal, insert sample and move the courier in one transaction",
  setup: async (target, { connections }) => {
    const runtime = target.server.core.runtime;
    const userIds = Array.from({ length: connections * couriersPerConnection }, () => randomUUID());
    await runtime.runPromise(
      Effect.forEach(userIds, (userId) => registerCourier({ kind: "user", userId }, { name: "Bench courier" }), { concurrency: target.dialect === "sqlite" ? 1 : 10 }),
    );
    const tokens = await Promise.all(userIds.map((userId) => mintToken({ secret: target.jwtSecret, userId, ttlSeconds: 3600 })));
    const base = Date.now() - 60_000;
    const requests: BenchRequest[] = [];
    // Batch-major order: consecutive requests go to different couriers, each courier's times increase.
    for (let batch = 0; batch < batchesPerCourier; batch++) {
      for (const [i, token] of tokens.entries()) {
        const sample = { lat: 52.5 + (i % 100) / 1000, lng: 13.4 + batch / 10_000, recorded_at: new Date(base + batch * 1000).toISOString() };
        requests.push({
          method: "POST",
          path: "/v1/delivery/couriers/me/locations",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ samples: [sample] }),
        });
      }
    }
    return { requests, consumable: true };
  },
  rawBaseline: async (db, bounds) => {
    // Every statement an ingestion runs through the stack, in the same transaction: the courier's
    // epoch and courier row, then the sample, the position and the courier's active deliveries
    // (their tracking events), as the adapters compile them. Until the eighth session it was the
    // sample and the position alone (2 of those 5 statements).
    const d = db.dialect;
    const q = (text: string) => numbered(d, text);
    const toDb = (at: Date): unknown => (d === "sqlite" ? at.toISOString() : at);
    const courierId = randomUUID();
    const userId = randomUUID();
    const runner = rawRunner(db);
    await runner.autocommit([
      [q(`insert into dl_couriers (id, user_id, name, online, lat, lng, located_at, created_at) values (?, ?, ?, ?, null, null, null, ?)`), [courierId, userId, "Raw courier", d === "sqlite" ? 1 : true, toDb(new Date())]],
    ]);
    const epoch = kernelSql(d).epoch;
    const courier = q(`select * from "dl_couriers" where "user_id" = ?`);
    const insert = q(`insert into "dl_location_samples" ("id", "courier_id", "sealed", "recorded_at", "received_at") values (?, ?, ?, ?, ?)`);
    const move = q(`update "dl_couriers" set "lat" = ?, "lng" = ?, "located_at" = ? where "id" = ?`);
    const active = q(`select * from "dl_deliveries" where "courier_id" = ? and "status" in (?, ?) order by "id"`);
    const measured = await measureOps(() => {
      const at = toDb(new Date());
      return inOrder([
        () => runner.autocommit([[epoch, [userId]], [courier, [userId]]]),
        () =>
          runner.inTransaction([
            [insert, [randomUUID(), courierId, randomBytes(sealedBytes), at, at]],
            [move, [52.5, 13.4, at, courierId]],
            [active, [courierId, "assigned", "picked_up"]],
          ]),
      ]);
    }, bounds);
    return {
      ...measured,
      label: `every statement of an ingestion: epoch, courier; ${d === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"}; insert dl_location_samples (sealed bytes); update dl_couriers position; select active deliveries; COMMIT`,
    };
  },
};

/** Restaurants around the bench's drop-off point. */
const discoveryRestaurants = 200;

/** Public discovery, first page, among many open restaurants. */
export const deliveryDiscovery: Scenario = {
  name: "delivery-discovery",
  description: "GET /v1/delivery/restaurants?lat&lng (anonymous, first page of 20 among 200 open restaurants)",
  setup: async (target) => {
    const runtime = target.server.core.runtime;
    await runtime.runPromise(
      Effect.forEach(
        Array.from({ length: discoveryRestaurants }, (_, i) => i),
        (i) =>
          Effect.gen(function* () {
            const owner = { kind: "user" as const, userId: randomUUID() };
            const restaurant = yield* createRestaurant(owner, {
              name: `Bench kitchen ${i}`,
              lat: 52.5 + (i % 20) / 1000,
              lng: 13.4 + Math.floor(i / 20) / 1000,
              serviceRadiusM: 5000,
              currency: "EUR",
            });
            yield* publishMenu(owner, restaurant.id, [{ name: "Soup", priceMinor: 650 }]);
            yield* setOpening(owner, restaurant.id, "open");
          }),
        { concurrency: target.dialect === "sqlite" ? 1 : 10, discard: true },
      ),
    );
    return { requests: [{ method: "GET", path: "/v1/delivery/restaurants?lat=52.51&lng=13.405&limit=20" }] };
  },
};
