/**
 * Delivery transitions (spec: PATCH /deliveries/:id/status): only permitted forward transitions
 * by the assigned courier; pickup before assignment is impossible; an unknown status is 422; a
 * stale version is 409; the same transition id answers the same result and changes nothing — a
 * retried completion creates no second settlement (issue rule 3).
 */
import t from "tap";
import { Effect } from "effect";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { forEachDeliveryDialect } from "./support.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant } from "./support.js";

t.test("illegal delivery transitions are refused; the same transition id answers the same and settles once", (t) =>
  forEachDeliveryDialect(t, "transitions", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [winner, other] = await onlineCouriers(rt, 2);
    const { placed, accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const deliveryId = accepted.delivery.id;

    t.match(
      await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "early", status: "picked_up", expectedVersion: 1 })),
      { ok: false, error: { code: "not_found" } },
      "pickup before assignment is impossible: nobody is the assigned courier yet",
    );
    const offer = (await rt.run(listMyOffers(winner!.principal)))[0]!;
    await rt.run(acceptOffer(winner!.principal, offer.id));

    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "x", status: "teleported", expectedVersion: 2 })), {
      ok: false,
      error: { code: "unknown_delivery_status", category: "unprocessable" },
    });
    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "skip", status: "delivered", expectedVersion: 2 })), {
      ok: false,
      error: { code: "illegal_delivery_transition", category: "conflict", from: "assigned", to: "delivered" },
    }, "assigned → delivered skips the pickup");
    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "back", status: "pending", expectedVersion: 2 })), {
      ok: false,
      error: { code: "illegal_delivery_transition" },
    }, "never backwards");
    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "stale", status: "picked_up", expectedVersion: 1 })), {
      ok: false,
      error: { code: "delivery_version_conflict", category: "conflict", currentVersion: 2 },
    });
    t.match(await rt.attempt(updateDeliveryStatus(other!.principal, deliveryId, { transitionId: "theirs", status: "picked_up", expectedVersion: 2 })), {
      ok: false,
      error: { code: "not_found" },
    }, "another courier's delivery is NotFound");

    const pickup = await rt.run(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "p1", status: "picked_up", expectedVersion: 2 }));
    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "p1", status: "delivered", expectedVersion: 3 })), {
      ok: false,
      error: { code: "transition_id_reused" },
    });
    const done = await rt.run(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "d1", status: "delivered", expectedVersion: 3 }));
    const again = await rt.run(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "d1", status: "delivered", expectedVersion: 3 }));
    t.same(again, done, "the repeated completion answers the same result");
    const pickupAgain = await rt.run(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "p1", status: "picked_up", expectedVersion: 2 }));
    t.same(pickupAgain, pickup, "an old transition id still answers its own result");
    t.match(await rt.attempt(updateDeliveryStatus(winner!.principal, deliveryId, { transitionId: "d2", status: "picked_up", expectedVersion: 4 })), {
      ok: false,
      error: { code: "illegal_delivery_transition", from: "delivered" },
    });
    const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(placed.order.id)));
    t.equal(entries.length, 4, "one settlement, not two");
    t.equal(rt.gateway.effects.capture, 1, "captured once");
    const history = await db.db.selectFrom("dl_delivery_status_changes").select(["to_status", "version"]).where("delivery_id", "=", deliveryId).orderBy("version").execute();
    t.same(history.map((h) => String(h.to_status)), ["pending", "assigned", "picked_up", "delivered"], "the history holds each transition once");
  }),
);

/*
 * Endpoints rule 2 and Versioning: the courier's status update carries its transition id, for
 * idempotent, ordered transitions. The status history also holds the ids the system writes
 * (`created`, `offer:<offer id>`, `reassign:<id>`); a courier's id that equals one of them must
 * not be answered as if the courier had made that change, nor refused as "reused" for a
 * transition the courier never made: those ids are reserved (422 on transition_id).
 */
t.test("a transition id is the courier's own: the ids the system writes in the status history are reserved (422)", (t) =>
  forEachDeliveryDialect(t, "reserved transition ids", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt);
    const [courier] = await onlineCouriers(rt, 1);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const deliveryId = accepted.delivery.id;
    const offer = (await rt.run(listMyOffers(courier!.principal)))[0]!;
    await rt.run(acceptOffer(courier!.principal, offer.id));
    const reserved = { ok: false, error: { code: "validation_failed", errors: [{ path: "transition_id" }] } };
    t.match(await rt.attempt(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: "created", status: "picked_up", expectedVersion: 2 })), reserved, "created: reserved, not 'reused'");
    t.match(await rt.attempt(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: "created", status: "pending", expectedVersion: 2 })), reserved, "created: not answered with the creation");
    t.match(await rt.attempt(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: `offer:${offer.id}`, status: "assigned", expectedVersion: 2 })), reserved, "offer:<id>: not answered with the assignment");
    t.match(await rt.attempt(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: "reassign:x", status: "picked_up", expectedVersion: 2 })), reserved, "reassign:<id>: reserved");
    const picked = await rt.run(updateDeliveryStatus(courier!.principal, deliveryId, { transitionId: "offered-and-picked", status: "picked_up", expectedVersion: 2 }));
    t.match(picked, { toStatus: "picked_up", version: 3 }, "any other id is the courier's");
  }),
);

t.test("the database refuses a backwards status, a second accepted offer and a courier on a pending delivery", (t) =>
  forEachDeliveryDialect(t, "delivery constraints", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [c1] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const offer = (await rt.run(listMyOffers(c1!.principal)))[0]!;
    await rt.run(acceptOffer(c1!.principal, offer.id));
    const id = accepted.delivery.id;
    await t.rejects(db.db.updateTable("dl_deliveries").set({ status: "pending", courier_id: null }).where("id", "=", id).execute(), "status never moves backwards");
    await t.rejects(db.db.updateTable("dl_deliveries").set({ version: 1 }).where("id", "=", id).execute(), "the version never decreases");
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ status: "accepted" }).where("delivery_id", "=", id).where("status", "=", "lost").execute(), "one accepted offer per delivery");
    await t.rejects(db.db.updateTable("dl_deliveries").set({ status: "picked_up", courier_id: null }).where("id", "=", id).execute(), "a picked-up delivery has a courier");
  }),
);

t.test("a dispatcher's reassignment records actor and reason; the previous courier loses the delivery", (t) =>
  forEachDeliveryDialect(t, "reassignment", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [c1, c2] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const id = accepted.delivery.id;
    await rt.run(acceptOffer(c1!.principal, (await rt.run(listMyOffers(c1!.principal)))[0]!.id));
    t.match(await rt.attempt(reassignDelivery({ actorId: "dispatcher-1", deliveryId: id, courierId: c2!.courier.id, reason: "" })), {
      ok: false,
      error: { code: "validation_failed" },
    }, "a reason is required");
    const moved = await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: id, courierId: c2!.courier.id, reason: "courier 1 has a flat tyre" }));
    t.match(moved, { courierId: c2!.courier.id, status: "assigned", version: 3 });
    const history = await db.db.selectFrom("dl_delivery_status_changes").selectAll().where("delivery_id", "=", id).where("version", "=", 3).executeTakeFirstOrThrow();
    t.match(history, { actor_id: "dispatcher-1", reason: "courier 1 has a flat tyre" }, "actor and reason are recorded");
    t.match(await rt.attempt(updateDeliveryStatus(c1!.principal, id, { transitionId: "p", status: "picked_up", expectedVersion: 3 })), { ok: false, error: { code: "not_found" } }, "the previous courier no longer acts on it");
    t.match(await rt.run(updateDeliveryStatus(c2!.principal, id, { transitionId: "p", status: "picked_up", expectedVersion: 3 })), { toStatus: "picked_up", version: 4 });
    t.match(await rt.attempt(reassignDelivery({ actorId: "dispatcher-1", deliveryId: id, courierId: c1!.courier.id, reason: "back" })), {
      ok: false,
      error: { code: "delivery_not_reassignable" },
    }, "not once picked up");
  }),
);
