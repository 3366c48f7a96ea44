/**
 * A courier holds one active job (spec, Authentication 2: "Courier (own offers, active job, ...)";
 * What the service does: batch deliveries are future scope, outside the contract; docs/decisions.md,
 * Food delivery (slice 1): dispatch offers only couriers with no assigned or picked-up delivery).
 * Offers of two deliveries may be live at once for one courier (both were made while the courier
 * was free): winning one makes the courier busy, and the other then answers 409 courier_busy
 * and stays pending for other couriers. A dispatcher cannot reassign to a busy courier either.
 * Racing accepts of one courier's offers (ten), on parallel Postgres connections, elect one delivery:
 * without the courier's row lock, two or more win (seen 3 runs in 3).
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant } from "./support.js";

t.test("a courier on an active delivery cannot win another: 409 courier_busy, the other delivery stays pending", (t) =>
  forEachDeliveryDialect(t, "one active job", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt);
    const [courier, other] = await onlineCouriers(rt, 2);
    const first = await acceptedOrder(rt, "cust-1", fixture);
    const second = await acceptedOrder(rt, "cust-2", fixture);
    const offers = await rt.run(listMyOffers(courier!.principal));
    t.same(offers.map((o) => o.deliveryId).sort(), [first.accepted.delivery.id, second.accepted.delivery.id].sort(), "the nearest courier holds an offer of each delivery");

    const won = await rt.run(acceptOffer(courier!.principal, offers.find((o) => o.deliveryId === first.accepted.delivery.id)!.id));
    t.equal(won.courierId, courier!.courier.id, "the first offer is won");
    const refused = await rt.attempt(acceptOffer(courier!.principal, offers.find((o) => o.deliveryId === second.accepted.delivery.id)!.id));
    t.match(refused, { ok: false, error: { code: "courier_busy", category: "conflict" } }, "the second is refused while the first is active");
    t.notOk(JSON.stringify(refused).includes("Alexanderplatz"), "no drop-off in the refusal");
    const row = await db.db.selectFrom("dl_deliveries").select(["status", "courier_id", "version"]).where("id", "=", second.accepted.delivery.id).executeTakeFirstOrThrow();
    t.same({ status: String(row.status), courier: row.courier_id, version: Number(row.version) }, { status: "pending", courier: null, version: 1 }, "the second delivery is unchanged");

    t.match(
      await rt.attempt(reassignDelivery({ actorId: "dispatcher-1", deliveryId: second.accepted.delivery.id, courierId: courier!.courier.id, reason: "nearest" })),
      { ok: false, error: { code: "courier_busy" } },
      "a dispatcher cannot give a busy courier a second job",
    );
    const moved = await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: second.accepted.delivery.id, courierId: other!.courier.id, reason: "nearest free courier" }));
    t.equal(moved.courierId, other!.courier.id, "a free courier can take it");
    const active = await db.db.selectFrom("dl_deliveries").select("courier_id").where("status", "in", ["assigned", "picked_up"]).execute();
    t.same(active.map((r) => r.courier_id).sort(), [courier!.courier.id, other!.courier.id].sort(), "one active delivery per courier");
  }),
);

t.test("one courier accepting offers of ten deliveries at once wins exactly one; the others answer 409 courier_busy", (t) =>
  forEachDeliveryDialect(t, "one active job race", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt);
    const [courier] = await onlineCouriers(rt, 1);
    for (let i = 0; i < 10; i++) await acceptedOrder(rt, `cust-${i}`, fixture);
    const offers = await rt.run(listMyOffers(courier!.principal));
    t.equal(offers.length, 10, "the courier holds ten live offers");

    const answers = await Promise.all(offers.map((offer) => rt.attempt(acceptOffer(courier!.principal, offer.id))));
    t.equal(answers.filter((a) => a.ok).length, 1, "exactly one delivery is won");
    for (const answer of answers.filter((a) => !a.ok)) t.match(answer, { ok: false, error: { code: "courier_busy" } }, "every other accept is refused");
    const assigned = await db.db.selectFrom("dl_deliveries").select("id").where("courier_id", "=", courier!.courier.id).execute();
    t.equal(assigned.length, 1, "the courier is on one delivery");
    const accepted = await db.db.selectFrom("dl_courier_offers").select("id").where("status", "=", "accepted").execute();
    t.equal(accepted.length, 1, "one offer accepted");
  }),
);

/*
 * The busy courier's other live offers can no longer be won (409 courier_busy), so they are
 * withdrawn (expired) by a job the win schedules, and a delivery left with no live offer is
 * offered to the next couriers at once (States: "offer expiry → expired, redispatch"), instead
 * of waiting out the offer's lifetime on a courier who cannot take it.
 */
t.test("winning a delivery withdraws the courier's other live offers, and their deliveries are redispatched at once", (t) =>
  forEachDeliveryDialect(t, "busy courier's offers withdrawn", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1, offerTtlSeconds: 300 });
    const fixture = await openRestaurant(rt);
    const [courier, next] = await onlineCouriers(rt, 2);
    const first = await acceptedOrder(rt, "cust-1", fixture);
    const second = await acceptedOrder(rt, "cust-2", fixture);
    const offers = await rt.run(listMyOffers(courier!.principal));
    t.equal(offers.length, 2, "the nearest courier holds both offers");
    t.equal((await rt.run(listMyOffers(next!.principal))).length, 0, "the next courier holds none");

    await rt.run(acceptOffer(courier!.principal, offers.find((o) => o.deliveryId === first.accepted.delivery.id)!.id));
    await rt.run(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 }));
    t.same(await rt.run(listMyOffers(courier!.principal)), [], "the busy courier's other offer is withdrawn");
    const withdrawn = await db.db.selectFrom("dl_courier_offers").select("status").where("courier_id", "=", courier!.courier.id).where("delivery_id", "=", second.accepted.delivery.id).executeTakeFirstOrThrow();
    t.equal(String(withdrawn.status), "expired", "withdrawn as expired");
    const redispatched = await rt.run(listMyOffers(next!.principal));
    t.same(redispatched.map((o) => o.deliveryId), [second.accepted.delivery.id], "the other delivery is offered to the next courier at once, long before the offer lifetime");
    t.equal((await rt.run(acceptOffer(next!.principal, redispatched[0]!.id))).courierId, next!.courier.id, "who can win it");

    // A dispatcher's reassignment makes its courier busy the same way.
    const [third] = await onlineCouriers(rt, 1, "r");
    const pending = await acceptedOrder(rt, "cust-3", fixture);
    const thirdOffers = await rt.run(listMyOffers(third!.principal));
    t.same(thirdOffers.map((o) => o.deliveryId), [pending.accepted.delivery.id], "the free courier holds the new delivery's offer");
    const fourth = await acceptedOrder(rt, "cust-4", fixture);
    await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: fourth.accepted.delivery.id, courierId: third!.courier.id, reason: "closest" }));
    await rt.run(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 }));
    t.same(await rt.run(listMyOffers(third!.principal)), [], "given a delivery, the courier's other offer is withdrawn");
  }),
);
