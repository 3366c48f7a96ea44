/**
 * Spec, States: "losing couriers are notified"; Roles: "Courier (own offers, active job …)",
 * "Customer (own orders and active courier tracking)". Each courier who lost a delivery — an offer
 * lost to the winner, or the delivery taken from them by a reassignment — is told on their own
 * channel only (CourierLostDelivery, to `courier:<id>`). CourierAssigned version 2 no longer lists
 * the losing couriers, so the customer, the restaurant, the winner and the other losers never learn
 * which couriers were offered the delivery. CourierAssigned version 1 (with `losing_courier_ids`)
 * still decodes and routes as before — SQLite and Postgres.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { CourierAssignedV1, DeliveryEvent } from "../../core/delivery/Events.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { Ids } from "../../ports/Ids.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant } from "./support.js";

t.test("a version-1 CourierAssigned (with losing_courier_ids) still decodes and routes to the losing couriers as before", async (t) => {
  const v1 = await Effect.runPromise(
    Effect.provideService(
      CourierAssignedV1.make({
        tenant_id: "r-1",
        aggregate_id: "d-1",
        aggregate_version: 2,
        actor_id: null,
        data: { delivery_id: "d-1", order_id: "o-1", courier_id: "c-1", offer_id: "of-1", version: 2, losing_courier_ids: ["c-2"] },
      }),
      Ids,
      Ids.of({ next: Effect.succeed("e-1") } as Ids),
    ),
  );
  t.equal(Schema.decodeUnknownEither(DeliveryEvent)(v1)._tag, "Right");
  t.same(deliveryChannelsFor(v1), ["delivery:d-1", "restaurant:r-1", "courier:c-1", "courier:c-2"]);
});

t.test("each losing courier is told on their own channel only; no other recipient learns which couriers were offered the delivery", (t) =>
  forEachDeliveryDialect(t, "lost offers", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-lost");
    const couriers = await onlineCouriers(rt, 4, "lost");
    const { accepted } = await acceptedOrder(rt, "customer-lost", fixture);
    const offered = [];
    for (const c of couriers.slice(0, 3)) offered.push((await rt.run(listMyOffers(c.principal)))[0]!);
    const [winner, loserA, loserB] = couriers;
    await rt.run(acceptOffer(winner!.principal, offered[0]!.id));
    // Support then hands the delivery to the fourth courier: the winner loses it.
    await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: accepted.delivery.id, courierId: couriers[3]!.courier.id, reason: "flat tyre" }));

    const rows = await db.db.selectFrom("outbox").select("event").orderBy("seq").execute();
    const events = rows.map((r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as EventEnvelope);
    for (const event of events) t.equal(Schema.decodeUnknownEither(DeliveryEvent)(event)._tag, "Right", `${event.type} decodes`);
    const toldOn = (courierId: string) => events.filter((e) => e.type === "CourierLostDelivery" && deliveryChannelsFor(e).includes(`courier:${courierId}`));

    for (const [loser, offer] of [[loserA!, offered[1]!], [loserB!, offered[2]!]] as const) {
      const told = toldOn(loser.courier.id);
      t.equal(told.length, 1, "a loser of the race is told once");
      t.match(told[0], { data: { delivery_id: accepted.delivery.id, courier_id: loser.courier.id, offer_id: offer.id } });
      t.same(deliveryChannelsFor(told[0]!), [`courier:${loser.courier.id}`], "on their channel only");
    }
    const winnerTold = toldOn(winner!.courier.id);
    t.equal(winnerTold.length, 1, "the courier the reassignment took the delivery from is told");
    t.match(winnerTold[0], { data: { delivery_id: accepted.delivery.id, courier_id: winner!.courier.id, offer_id: offered[0]!.id } }, "with the offer they had won");

    // No channel hears of a courier offered the delivery other than its own courier (the winner of
    // the race is shown to the customer and the restaurant, as the order shows it).
    for (const loser of [loserA!, loserB!]) {
      for (const event of events) {
        if (!JSON.stringify(event.data).includes(loser.courier.id)) continue;
        t.same(deliveryChannelsFor(event), [`courier:${loser.courier.id}`], `${event.type} naming a losing courier goes to that courier only`);
      }
    }
    for (const event of events.filter((e) => e.type === "CourierAssigned")) {
      t.equal(event.schema_version, 2);
      t.notOk("losing_courier_ids" in (event.data as object), "CourierAssigned lists no losing couriers");
    }

    // A courier a reassignment gave the delivery to holds no offer: losing it again, they are told without one.
    await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: accepted.delivery.id, courierId: loserA!.courier.id, reason: "closer" }));
    const again = (await db.db.selectFrom("outbox").select("event").orderBy("seq").execute()).map((r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as EventEnvelope);
    const heldNoOffer = again.filter((e) => e.type === "CourierLostDelivery" && (e.data as { courier_id: string }).courier_id === couriers[3]!.courier.id);
    t.equal(heldNoOffer.length, 1);
    t.match(heldNoOffer[0], { data: { offer_id: null } });
    t.same(deliveryChannelsFor(heldNoOffer[0]!), [`courier:${couriers[3]!.courier.id}`]);
  }),
);
