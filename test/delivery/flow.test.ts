/**
 * The delivery flow end to end through the core on the real SQL adapters: a server-calculated
 * quote, an authorized order (authorization outside the transaction, stable key), restaurant
 * acceptance creating one delivery and offers, one courier winning, pickup and delivery, and a
 * balanced settlement with the capture after completion.
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Effect, Schema } from "effect";
import { DeliveryEvent } from "../../core/delivery/Events.js";
import { forEachDeliveryDialect, advanceDelivery } from "./support.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant, quoteFor, user } from "./support.js";

t.test("a quote is server-calculated: total = subtotal + delivery fee + service fee + tax", (t) =>
  forEachDeliveryDialect(t, "quote totals", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    t.equal(quote.subtotalMinor, 900 + 150 + 2 * 350, "items, modifiers and quantities");
    t.equal(quote.taxMinor, 105 + 70, "10% per line, rounded half up");
    t.equal(quote.serviceFeeMinor, 88, "5% of the subtotal (87.5), rounded half up");
    t.equal(quote.deliveryFeeMinor, 299, "within the first kilometre");
    t.equal(quote.totalMinor, quote.subtotalMinor + quote.deliveryFeeMinor + quote.serviceFeeMinor + quote.taxMinor);
    t.equal(quote.currency, "EUR");
    t.ok(quote.expiresAt.getTime() > quote.createdAt.getTime(), "the quote expires");
  }),
);

t.test("order → accept → offers → courier accepts → picked up → delivered: settlement balanced, payment captured", (t) =>
  forEachDeliveryDialect(t, "happy path", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const couriers = await onlineCouriers(rt, 4);
    const { placed, accepted } = await acceptedOrder(rt, "cust-1", fixture);
    t.equal(placed.workflow.status, "authorized");
    t.equal(placed.workflow.paymentState, "authorized");
    t.equal(rt.gateway.payments()[0]?.status, "requires_capture", "the authorization is held");
    t.equal(accepted.workflow.status, "accepted");
    t.equal(accepted.delivery.status, "pending");
    t.equal(accepted.delivery.courierId, null, "no courier until a winner is elected");

    const offered = [];
    for (const c of couriers) offered.push(await rt.run(listMyOffers(c.principal)));
    t.same(offered.map((o) => o.length), [1, 1, 1, 0], "the three nearest couriers get an offer (fan-out 3)");

    const first = couriers[0]!;
    const offer = offered[0]![0]!;
    const assigned = await rt.run(acceptOffer(first.principal, offer.id));
    t.equal(assigned.courierId, first.courier.id);
    t.equal(assigned.status, "assigned");
    t.equal(assigned.version, 2);

    const view = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.same(view.delivery, { id: assigned.id, status: "assigned", courierId: first.courier.id, version: 2 }, "the customer sees the delivery");

    await rt.run(updateDeliveryStatus(first.principal, assigned.id, { transitionId: "t-pickup", status: "picked_up", expectedVersion: 2 }));
    const done = await advanceDelivery(rt, first.principal, assigned.id, { transitionId: "t-drop", status: "delivered" });
    t.equal(done.toStatus, "delivered");
    t.equal(done.version, 4);

    const entries = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(placed.order.id)));
    t.equal(entries.length, 4, "customer charge, restaurant, courier and platform components");
    t.equal(entries.reduce((s, e) => s + e.amountMinor, 0), 0, "the settlement balances");
    const charge = entries.find((e) => e.component === "customer_charge");
    t.equal(charge?.amountMinor, placed.order.totalMinor, "the customer charge is the order total");

    const after = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.equal(after.workflow.status, "completed");
    t.equal(after.workflow.paymentState, "captured", "captured after completion");
    t.equal(rt.gateway.payments()[0]?.status, "succeeded");
    const outbox = await db.db.selectFrom("outbox").select("type").execute();
    const types = outbox.map((r) => String(r.type));
    for (const type of ["OrderPlaced", "RestaurantAcceptedOrder", "CourierAssigned", "DeliveryCompleted"]) t.ok(types.includes(type), `${type} is in the outbox`);

    // Consumers decode envelopes with the module's one event union; CourierAssigned carries the delivery version.
    const rows = await db.db.selectFrom("outbox").select("event").orderBy("seq").execute();
    const events = rows.map((r) => Schema.decodeUnknownSync(DeliveryEvent)(typeof r.event === "string" ? JSON.parse(r.event) : r.event));
    const assignedEvent = events.find((e) => e.type === "CourierAssigned");
    t.match(assignedEvent, { aggregate_id: assigned.id, aggregate_version: 2, data: { delivery_id: assigned.id, courier_id: first.courier.id, version: 2, offer_id: offer.id } });
    t.same(
      events.flatMap((e) => (e.type === "CourierLostDelivery" ? [e.data.courier_id] : [])).sort(),
      [couriers[1]!.courier.id, couriers[2]!.courier.id].sort(),
      "each losing courier gets a realtime notice of their own",
    );
    t.match(events.find((e) => e.type === "DeliveryCompleted"), { aggregate_version: 4, data: { version: 4, total_minor: placed.order.totalMinor, currency: "EUR" } });
  }),
);
