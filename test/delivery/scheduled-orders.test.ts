/**
 * Scheduled orders (spec: should-have, "placed for a later slot, dispatched in time"): a quote
 * names a delivery slot — a quarter hour, 30 minutes to 7 days ahead, else 422 on
 * `scheduled_for`; the order keeps it and the restaurant sees it among its incoming orders;
 * accepting creates the delivery but offers it to nobody until its durable timer, due 20
 * minutes before the slot, starts dispatch — SQLite and Postgres.
 */
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { acceptOrder } from "../../core/delivery/AcceptOrder.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { listIncomingOrders } from "../../core/delivery/IncomingOrders.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { quoteOrder } from "../../core/delivery/QuoteOrder.js";
import { scheduledDispatchLeadMs, slotMinutes } from "../../core/delivery/ScheduledSlot.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, forEachDeliveryDialect, here, onlineCouriers, openRestaurant, user, type DeliveryRuntime } from "./support.js";

const slotMs = slotMinutes * 60_000;
/** The first quarter hour at least `aheadMs` from now. */
const slotAhead = (aheadMs: number): Date => new Date(Math.ceil((Date.now() + aheadMs) / slotMs) * slotMs);

const quoteWith = (rt: DeliveryRuntime, fixture: Awaited<ReturnType<typeof openRestaurant>>, scheduledFor: Date | null) => {
  const [pizza] = fixture.menu.items;
  return rt.attempt(
    quoteOrder(user("customer-sched"), {
      restaurantId: fixture.restaurant.id,
      menuVersion: fixture.menu.version,
      lines: [{ itemId: pizza!.id, quantity: 1, modifierIds: [] }],
      dropoff: { lat: here.lat + 0.009, lng: here.lng, address: "Alexanderplatz 1" },
      scheduledFor,
    }),
  );
};

t.test("a scheduled order keeps its slot, the restaurant sees it, and dispatch starts by its timer before the slot", (t) =>
  forEachDeliveryDialect(t, "scheduled orders", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-sched");

    for (const [label, slot] of [
      ["not on a quarter hour", new Date(slotAhead(2 * 3600_000).getTime() + 60_000)],
      ["less than 30 minutes ahead", slotAhead(0)],
      ["more than 7 days ahead", slotAhead(8 * 86_400_000)],
    ] as const) {
      t.match(await quoteWith(rt, fixture, slot), { ok: false, error: { code: "validation_failed", errors: [{ path: "scheduled_for" }] } }, `422: ${label}`);
    }

    const slot = slotAhead(2 * 3600_000);
    const quote = await quoteWith(rt, fixture, slot);
    if (!quote.ok) throw new Error("quote failed");
    t.same(quote.value.scheduledFor, slot, "the quote names the slot");
    const placed = await rt.run(placeOrder(user("customer-sched"), { quoteId: quote.value.id, paymentMethod: "pm_card_visa" }));
    t.same(placed.order.scheduledFor, slot, "the order snapshot keeps the slot");
    const incoming = await rt.run(listIncomingOrders(user("owner-sched"), fixture.restaurant.id));
    t.same(incoming.data.find((w) => w.orderId === placed.order.id)?.scheduledFor, slot, "the restaurant sees the slot");

    const [courier] = await onlineCouriers(rt, 1, "sched");
    const accepted = await rt.run(acceptOrder(user("owner-sched"), placed.order.id, { prepTimeMinutes: 20 }));
    t.equal(accepted.delivery.status, "pending");
    t.same(await rt.run(listMyOffers(courier!.principal)), [], "no offer right after acceptance: the slot is hours away");

    const dispatchAt = slot.getTime() - scheduledDispatchLeadMs;
    await rt.run(at(dispatchAt - 60_000)(runJobsOnce(deliveryJobs, { workerId: "sched", concurrency: 1 })));
    t.same(await rt.run(listMyOffers(courier!.principal)), [], "still none a minute before the timer");
    await rt.run(at(dispatchAt + 1_000)(runJobsOnce(deliveryJobs, { workerId: "sched", concurrency: 1 })));
    const offers = await rt.run(at(dispatchAt + 2_000)(listMyOffers(courier!.principal)));
    t.same(offers.map((o) => o.deliveryId), [accepted.delivery.id], "the timer offered the delivery 20 minutes before the slot");
    t.same((await rt.run(getOrder(user("customer-sched"), placed.order.id))).order.scheduledFor, slot, "the customer's order shows the slot");
  }),
);

t.test("a scheduled order accepted after its dispatch time is offered at once", (t) =>
  forEachDeliveryDialect(t, "late scheduled acceptance", async (t, db) => {
    const rt = deliveryRuntime(t, db, { acceptDeadlineSeconds: 3600 });
    const fixture = await openRestaurant(rt, "owner-late");
    const slot = slotAhead(31 * 60_000);
    const quote = await quoteWith(rt, fixture, slot);
    if (!quote.ok) throw new Error("quote failed");
    const placed = await rt.run(placeOrder(user("customer-sched"), { quoteId: quote.value.id, paymentMethod: "pm_card_visa" }));
    const [courier] = await onlineCouriers(rt, 1, "late");
    // The kitchen confirms 15 minutes before the slot: later than the 20-minute dispatch lead.
    const acceptedAt = slot.getTime() - 15 * 60_000;
    const accepted = await rt.run(at(acceptedAt)(acceptOrder(user("owner-late"), placed.order.id, { prepTimeMinutes: 10 })));
    const offers = await rt.run(at(acceptedAt + 1_000)(listMyOffers(courier!.principal)));
    t.same(offers.map((o) => o.deliveryId), [accepted.delivery.id], "dispatched at acceptance");
  }),
);
