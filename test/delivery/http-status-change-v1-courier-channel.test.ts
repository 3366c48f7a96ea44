/**
 * A version-1 DeliveryStatusChanged (written before version 2; it names no courier) reaches the
 * delivery's courier on `courier:<id>` (spec: Roles, "Courier (own offers, active job …)";
 * Versioning, "Mobile realtime events are versioned"; delivery known gap "a completion written
 * just before the deploy reaches the courier's channel with neither event"): the realtime
 * routing reads the delivery's courier. Over realtime on the reference server, SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { isOldStatusChange, oldStatusChangeCourierChannels } from "../../core/delivery/ChannelAccess.js";
import { DeliveryStatusChanged, DeliveryStatusChangedV1 } from "../../core/delivery/Events.js";
import type { Delivery } from "../../core/delivery/model/Delivery.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { dialects } from "../support/databases.js";
import { assignedDelivery, subscribedTo } from "./http-support.js";

t.test("only a version-1 status change is routed by reading the delivery; none reaches a courier while the delivery has none", async (t) => {
  const withIds = Effect.provideService(Ids, Ids.of({ next: Effect.succeed("e-1") } as Ids));
  const v1 = await Effect.runPromise(
    withIds(DeliveryStatusChangedV1.make({ tenant_id: "r-1", aggregate_id: "d-1", aggregate_version: 2, actor_id: null, data: { delivery_id: "d-1", from: "pending", to: "cancelled", version: 2, transition_id: "t-1" } })),
  );
  const v2 = await Effect.runPromise(
    withIds(DeliveryStatusChanged.make({ tenant_id: "r-1", aggregate_id: "d-1", aggregate_version: 2, actor_id: null, data: { delivery_id: "d-1", courier_id: "c-1", from: "assigned", to: "picked_up", version: 2, transition_id: "t-1" } })),
  );
  t.equal(isOldStatusChange(v1), true);
  t.equal(isOldStatusChange(v2), false, "version 2 names its courier: the pure mapping routes it");
  const reading = (courierId: string | null) =>
    Effect.provideService(DispatchRepository, { findDelivery: (id: string) => Effect.succeed(id === "d-1" ? ({ id, courierId } as unknown as Delivery) : null) } as unknown as DispatchRepository);
  t.same(await Effect.runPromise(reading("c-9")(oldStatusChangeCourierChannels(v1))), ["courier:c-9"], "the delivery's courier");
  t.same(await Effect.runPromise(reading(null)(oldStatusChangeCourierChannels(v1))), [], "a delivery without a courier: no courier channel");
  t.same(await Effect.runPromise(reading("c-9")(oldStatusChangeCourierChannels(v2))), [], "nothing for another event");
});

for (const dialect of dialects) {
  t.test(`a version-1 DeliveryStatusChanged written straight into the outbox reaches the delivery's courier on courier:<id> [${dialect}]`, async (t) => {
    const { server, courier, restaurant, courierId, deliveryId } = await assignedDelivery(t, dialect);
    const courierLive = await subscribedTo(t, server.url, courier, `courier:${courierId}`);

    // As written before the deploy: version 1, no courier named.
    const v1 = await server.core.runtime.runPromise(
      DeliveryStatusChangedV1.make({
        tenant_id: restaurant.restaurantId,
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
