/**
 * A delivery's status change reaches the courier it concerns on `courier:<id>` (spec: Roles,
 * "Courier (own offers, active job …)"; Versioning, "Mobile realtime events are versioned"):
 * DeliveryStatusChanged version 2 carries the delivery's courier, so the courier of a delivery
 * support cancelled is told on their channel (not only by push) — over realtime, SQLite and
 * Postgres. Version 1 envelopes (no courier) still decode and route as before: the customer's
 * delivery channel and the restaurant's.
 */
import { randomUUID } from "node:crypto";
import { Effect, Schema } from "effect";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import { DeliveryEvent, DeliveryStatusChanged, DeliveryStatusChangedV1 } from "../../core/delivery/Events.js";
import { Ids } from "../../ports/Ids.js";
import { hostSecret } from "../hosts/support.js";
import { dialects } from "../support/databases.js";
import { acceptFirstOffer, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer, subscribedTo } from "./http-support.js";

const withIds = Effect.provideService(Ids, Ids.of({ next: Effect.succeed("e-1") } as Ids));

t.test("a version-1 DeliveryStatusChanged (no courier) still decodes and routes to the delivery and the restaurant only", async (t) => {
  const v1 = await Effect.runPromise(
    withIds(DeliveryStatusChangedV1.make({ tenant_id: "r-1", aggregate_id: "d-1", aggregate_version: 3, actor_id: null, data: { delivery_id: "d-1", from: "assigned", to: "cancelled", version: 3, transition_id: "t-1" } })),
  );
  t.equal(v1.schema_version, 1);
  t.equal(Schema.decodeUnknownEither(DeliveryEvent)(v1)._tag, "Right", "decodes with the module's event union");
  t.same(deliveryChannelsFor(v1), ["delivery:d-1", "restaurant:r-1"], "routed as before");
});

t.test("a version-2 DeliveryStatusChanged goes to the courier it concerns as well; one of a delivery without a courier to the delivery and the restaurant", async (t) => {
  const v2 = (courierId: string | null) =>
    Effect.runPromise(
      withIds(DeliveryStatusChanged.make({ tenant_id: "r-1", aggregate_id: "d-1", aggregate_version: 3, actor_id: null, data: { delivery_id: "d-1", courier_id: courierId, from: "assigned", to: "cancelled", version: 3, transition_id: "t-1" } })),
    );
  const withCourier = await v2("c-1");
  t.equal(withCourier.schema_version, 2);
  t.equal(Schema.decodeUnknownEither(DeliveryEvent)(withCourier)._tag, "Right");
  t.same(deliveryChannelsFor(withCourier), ["delivery:d-1", "restaurant:r-1", "courier:c-1"]);
  t.same(deliveryChannelsFor(await v2(null)), ["delivery:d-1", "restaurant:r-1"], "a pending delivery's change: no courier channel");
});

for (const dialect of dialects) {
  t.test(`the courier of a delivery support cancelled is told on courier:<id> (DeliveryStatusChanged version 2 carries the courier) [${dialect}]`, async (t) => {
    const dispatcher = randomUUID();
    const { server, as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcher}=52.0:13.0:53.0:14.0` });
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    const courierId = await onlineCourier(courier);
    const placed = await customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: "pm_card_visa" }, freshKey());
    const orderId = String(placed.body.id);
    const deliveryId = String((await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 5 })).body.delivery_id);
    await acceptFirstOffer(t, courier);
    const courierLive = await subscribedTo(t, server.url, courier, `courier:${courierId}`);

    const token = await mintToken({ secret: hostSecret, userId: dispatcher, ttlSeconds: 600, authTime: Math.floor(Date.now() / 1000) });
    const cancelled = await fetch(`${base}/operator/orders/${orderId}/cancel`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": freshKey() },
      body: JSON.stringify({ reason: "the kitchen closed" }),
    });
    t.equal(cancelled.status, 200, "support cancels the delivery");

    const told = await courierLive.next((m) => m.type === "event" && m.event?.type === "DeliveryStatusChanged", 10_000);
    t.match(
      told,
      { channel: `courier:${courierId}`, event: { schema_version: 2, data: { delivery_id: deliveryId, to: "cancelled", courier_id: courierId } } },
      "the courier hears of the cancellation on their channel",
    );
    t.notOk(JSON.stringify(told ?? {}).includes("the kitchen closed"), "without support's reason");
  });
}
