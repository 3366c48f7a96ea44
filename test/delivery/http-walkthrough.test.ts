/**
 * The delivery walk-through over HTTP and ws on the reference server (delivery mounted at
 * /v1/delivery, money through the in-process payment module), SQLite and Postgres: restaurant
 * and menu, discovery, quote, order (Idempotency-Key required, exact replay), accept (idempotent,
 * one delivery), offer, courier accept, tracking, pickup, delivery, settlement and capture; the
 * customer's, the restaurant's and the courier's channels each receive their events.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { connectRealtime, eventually, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a meal from menu to doorstep over HTTP, with realtime channels [${dialect}]`, async (t) => {
    const { server, as, anonymous } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const courierUser = as();
    const r = await openRestaurant(owner, t);

    const found = await anonymous.get(`/restaurants?lat=52.521&lng=13.405`);
    t.equal(found.status, 200, "discovery is public");
    t.match(found.body.data[0], { id: r.restaurantId, opening_state: "open" });
    t.notOk("merchant_id" in found.body.data[0], "discovery hides the merchant");
    t.match(await anonymous.get(`/restaurants?lat=95&lng=13`), { status: 400, body: { code: "invalid_coordinates" } });
    t.match(await anonymous.get(`/restaurants/${r.restaurantId}/menu`), { status: 200, body: { version: r.menuVersion } });

    const courierId = await onlineCourier(courierUser);

    // Realtime: the restaurant's staff, the courier and (later) the customer.
    const staffLive = await connectRealtime(server.url, await owner.token());
    const courierLive = await connectRealtime(server.url, await courierUser.token());
    t.teardown(() => {
      staffLive.close();
      courierLive.close();
    });
    staffLive.send({ type: "subscribe", channel: `restaurant:${r.restaurantId}` });
    t.match(await staffLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" }, "staff subscribe to their restaurant");
    courierLive.send({ type: "subscribe", channel: `courier:${courierId}` });
    t.match(await courierLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" }, "a courier subscribes to their own channel");

    const quote = await customer.post("/orders/quote", quoteBody(r));
    t.equal(quote.status, 200);
    const q = quote.body;
    t.equal(q.subtotal_minor, 900 + 150 + 2 * 350);
    t.equal(q.total_minor, q.subtotal_minor + q.delivery_fee_minor + q.service_fee_minor + q.tax_minor, "total = subtotal + fees + tax");

    t.match(await customer.post("/orders", { quote_id: q.id, payment_method: "pm_card_visa" }), { status: 400, body: { code: "idempotency_key_required" } });
    const key = freshKey();
    const placed = await customer.post("/orders", { quote_id: q.id, payment_method: "pm_card_visa" }, key);
    t.equal(placed.status, 201, "authorized and placed");
    t.match(placed.body, { status: "authorized", payment_state: "authorized", total_minor: q.total_minor, delivery: null });
    const orderId = String(placed.body.id);
    const replay = await customer.post("/orders", { quote_id: q.id, payment_method: "pm_card_visa" }, key);
    t.equal(replay.headers.get("idempotent-replayed"), "true", "the same key replays");
    t.same(replay.body, placed.body);
    t.match(await staffLive.next((m) => m.type === "event" && m.event.type === "OrderPlaced"), { event: { data: { order_id: orderId } } }, "the restaurant sees its incoming order");

    const incoming = await owner.get(`/restaurants/${r.restaurantId}/orders`);
    t.match(incoming, { status: 200, body: { data: [{ order_id: orderId, status: "authorized" }], next_cursor: null } });

    const accepted = await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 15 });
    t.match(accepted, { status: 200, body: { order_id: orderId, status: "accepted", prep_time_minutes: 15 } });
    const deliveryId = String(accepted.body.delivery_id);
    const again = await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 15 });
    t.equal(again.body.delivery_id, deliveryId, "accepting again answers the same delivery");

    const customerLive = await connectRealtime(server.url, await customer.token());
    t.teardown(() => customerLive.close());
    customerLive.send({ type: "subscribe", channel: `delivery:${deliveryId}` });
    t.match(await customerLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" }, "the customer subscribes to their delivery");

    const offered = await courierLive.next((m) => m.type === "event" && m.event.type === "CourierOffered");
    t.match(offered, { channel: `courier:${courierId}`, event: { data: { delivery_id: deliveryId, courier_id: courierId } } }, "the courier is offered the delivery live");
    const offers = await courierUser.get("/couriers/me/offers");
    t.match(offers, { status: 200, body: { data: [{ delivery_id: deliveryId, status: "offered" }], next_cursor: null } });
    const offerId = String(offers.body.data[0].id);

    t.match(await courierUser.post(`/courier-offers/${offerId}/accept`), { status: 400, body: { code: "idempotency_key_required" } });
    const won = await courierUser.post(`/courier-offers/${offerId}/accept`, {}, freshKey());
    t.match(won, { status: 200, body: { id: deliveryId, status: "assigned", courier_id: courierId, dropoff_address: "Alexanderplatz 1" } });
    t.notOk("customer_id" in won.body, "the courier does not learn the customer's identity");
    const assigned = await customerLive.next((m) => m.type === "event" && m.event.type === "CourierAssigned");
    t.match(assigned, { event: { data: { delivery_id: deliveryId, courier_id: courierId, version: won.body.version } } }, "CourierAssigned carries the delivery version");

    await courierUser.post("/couriers/me/locations", { samples: [{ lat: here.lat + 0.004, lng: here.lng, recorded_at: new Date().toISOString() }] });
    const moved = await customerLive.next((m) => m.type === "event" && m.event.type === "CourierPositionUpdated");
    t.match(moved, { event: { data: { delivery_id: deliveryId, lat: 52.524, lng: 13.405 } } }, "the customer sees the courier move (coarse)");
    const tracking = await customer.get(`/deliveries/${deliveryId}/tracking`);
    t.match(tracking, { status: 200, body: { delivery_id: deliveryId, status: "assigned", courier_position: { lat: here.lat + 0.004 } } });
    t.match(await courierUser.get(`/couriers/me/deliveries/${deliveryId}`), { status: 200, body: { dropoff: { address: "Alexanderplatz 1" } } });

    const pickedUp = await courierUser.patch(`/deliveries/${deliveryId}/status`, { transition_id: "pickup-1", status: "picked_up", expected_version: (await courierUser.get(`/couriers/me/deliveries/${deliveryId}`)).body.version });
    t.match(pickedUp, { status: 200, body: { to_status: "picked_up", from_status: "assigned" } });
    const delivered = await courierUser.patch(`/deliveries/${deliveryId}/status`, { transition_id: "drop-1", status: "delivered", expected_version: pickedUp.body.version });
    t.match(delivered, { status: 200, body: { to_status: "delivered" } });
    const retried = await courierUser.patch(`/deliveries/${deliveryId}/status`, { transition_id: "drop-1", status: "delivered", expected_version: pickedUp.body.version });
    t.same(retried.body, delivered.body, "the same transition id answers the same change");
    t.match(await customerLive.next((m) => m.type === "event" && m.event.type === "DeliveryCompleted"), { event: { data: { delivery_id: deliveryId, total_minor: q.total_minor } } });

    const finalOrder = await eventually(
      () => customer.get(`/orders/${orderId}`),
      (a) => a.body.payment_state === "captured",
    );
    t.match(finalOrder, { status: 200, body: { status: "completed", payment_state: "captured", delivery: { id: deliveryId, status: "delivered", courier_id: courierId } } }, "settled and captured");
    const settlement = await owner.get(`/restaurant-orders/${orderId}/settlement`);
    t.equal(settlement.status, 200);
    const entries = settlement.body.data as Array<{ component: string; amount_minor: number }>;
    t.equal(entries.length, 4, "customer charge, restaurant, courier and platform");
    t.equal(entries.reduce((sum, e) => sum + e.amount_minor, 0), 0, "the settlement sums to zero");
    t.match(await customer.get(`/restaurant-orders/${orderId}/settlement`), { status: 404 }, "only the restaurant reads it");
    t.match(await customer.get(`/deliveries/${deliveryId}/tracking`), { status: 404 }, "tracking ends with the delivery");
    t.match(
      await customerLive.next((m) => m.type === "unsubscribed", 10_000),
      { type: "unsubscribed", channel: `delivery:${deliveryId}`, reason: "access_revoked" },
      "the live tracking subscription is dropped shortly after completion",
    );
    const later = await connectRealtime(server.url, await customer.token());
    t.teardown(() => later.close());
    later.send({ type: "subscribe", channel: `delivery:${deliveryId}` });
    t.match(await later.next((m) => m.type === "subscribed" || m.type === "error"), { type: "error" }, "a finished delivery's channel refuses a new subscription");
  });
}

const here = { lat: 52.52, lng: 13.405 };
