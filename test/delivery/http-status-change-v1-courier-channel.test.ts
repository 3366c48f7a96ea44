/**
 * A version-1 DeliveryStatusChanged (written before version 2; it names no courier) reaches the
 * delivery's courier on `courier:<id>` (spec: Roles, "Courier (own offers, active job …)";
 * Versioning, "Mobile realtime events are versioned"; delivery known gap "a completion written
 * just before the deploy reaches the courier's channel with neither event"): the realtime
 * routing reads the delivery's courier. Over realtime on the reference server, SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { DeliveryStatusChangedV1 } from "../../core/delivery/Events.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, connectRealtime, freshKey, onlineCourier, openRestaurant, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a version-1 DeliveryStatusChanged written straight into the outbox reaches the delivery's courier on courier:<id> [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    const courierId = await onlineCourier(courier);
    const deliveryId = await acceptedOrderDelivery(customer, owner, r);
    const offer = (await courier.get("/couriers/me/offers")).body.data[0];
    t.equal((await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, freshKey())).status, 200, "the courier is assigned");

    const courierLive = await connectRealtime(server.url, await courier.token());
    t.teardown(() => courierLive.close());
    courierLive.send({ type: "subscribe", channel: `courier:${courierId}` });
    t.match(await courierLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" });

    // As written before the deploy: version 1, no courier named.
    const v1 = await server.core.runtime.runPromise(
      DeliveryStatusChangedV1.make({
        tenant_id: r.restaurantId,
        aggregate_id: deliveryId,
        aggregate_version: 9,
        actor_id: null,
        data: { delivery_id: deliveryId, from: "picked_up", to: "delivered", version: 9, transition_id: "old-transition" },
      }),
    );
    await server.core.runtime.runPromise(Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (outbox) => outbox.append([v1])))));

    const told = await courierLive.next((m) => m.type === "event" && m.event?.id === v1.id, 10_000);
    t.match(told, { channel: `courier:${courierId}`, event: { type: "DeliveryStatusChanged", schema_version: 1, data: { delivery_id: deliveryId, to: "delivered" } } }, "the delivery's courier is told on their channel");
  });
}
