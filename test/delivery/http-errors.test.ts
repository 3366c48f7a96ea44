/**
 * Every error the delivery routes answer, over HTTP on the reference server (SQLite and
 * Postgres): the spec's status codes (400 discovery; 409/422 quote; 201/202/402/409 order;
 * 409 accept; 409/410 courier accept; 409/422 delivery status), validation and idempotency
 * answers, and object-level isolation: another restaurant's order, another courier's offer,
 * another customer's order, quote and delivery answer 404, and their channels are refused.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { connectRealtime, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer, type Client, type OpenRestaurant } from "./http-support.js";

const ttl = 2;

for (const dialect of dialects) {
  t.test(`each route's error answers, and isolation between tenants [${dialect}]`, async (t) => {
    const { server, as, anonymous } = await startDeliveryServer(t, dialect, {
      DELIVERY_QUOTE_TTL_SECONDS: String(ttl),
      DELIVERY_OFFER_TTL_SECONDS: String(ttl),
    });
    const owner = as();
    const otherOwner = as();
    const customer = as();
    const otherCustomer = as();
    const r = await openRestaurant(owner, t);
    const other = await openRestaurant(otherOwner, t);
    const couriers = [as(), as()];
    const courierIds = [await onlineCourier(couriers[0]!, 0.001), await onlineCourier(couriers[1]!, 0.002)];
    const stranger = as();

    const place = (who: Client, quoteId: string, paymentMethod = "pm_card_visa", key = freshKey()) =>
      who.post("/orders", { quote_id: quoteId, payment_method: paymentMethod }, key);
    const quote = async (who: Client, restaurant: OpenRestaurant = r) => {
      const answer = await who.post("/orders/quote", quoteBody(restaurant));
      t.equal(answer.status, 200, "quoted");
      return String(answer.body.id);
    };

    t.test("discovery and restaurant setup", async (t) => {
      const page = await anonymous.get("/restaurants?lat=52.52&lng=13.405&limit=1");
      t.equal(page.status, 200);
      t.type(page.body.next_cursor, "string", "two restaurants serve the point: a second page");
      t.match(await anonymous.get(`/restaurants?lat=52.6&lng=13.405&cursor=${page.body.next_cursor}`), { status: 400, body: { code: "invalid_cursor" } });
      t.match(await anonymous.get("/restaurants?lng=13.405"), { status: 400, body: { code: "invalid_coordinates" } });
      t.match(await anonymous.post("/restaurants", { name: "x", lat: 1, lng: 1, service_radius_m: 10, currency: "EUR" }), { status: 401 });
      t.match(await owner.post("/restaurants", { name: "Far", lat: 1, lng: 1, service_radius_m: 60_000, currency: "EUR" }), {
        status: 422,
        body: { code: "validation_failed", errors: [{ path: "service_radius_m" }] },
      });
      t.match(await stranger.post(`/restaurants/${r.restaurantId}/staff`, { user_id: stranger.userId }), { status: 404 }, "only staff add staff");
      t.match(await stranger.post(`/restaurants/${r.restaurantId}/menus`, { items: [{ name: "x", price_minor: 1 }] }), { status: 404 });
      t.match(await owner.post(`/restaurants/${r.restaurantId}/menus`, { items: [] }), { status: 422, body: { code: "validation_failed" } });
      t.match(await owner.put(`/restaurants/${r.restaurantId}/items/${other.pizza.id}/availability`, { available: false }), { status: 404 }, "another restaurant's item");
      t.match(await stranger.post(`/restaurants/${r.restaurantId}/close`), { status: 404 });
      t.match(await otherOwner.get(`/restaurants/${r.restaurantId}/orders`), { status: 404 }, "another restaurant's incoming orders");
      t.match(await anonymous.get(`/restaurants/unknown/menu`), { status: 404 });
    });

    t.test("quote: 409 with a resolvable diff, 422 for zone, closed restaurant and lines", async (t) => {
      const body = quoteBody(r);
      t.match(await customer.post("/orders/quote", { ...body, dropoff: { ...body.dropoff, lat: 53.5 } }), { status: 422, body: { code: "outside_service_zone" } });
      t.match(await customer.post("/orders/quote", { ...body, lines: [{ item_id: r.pizza.id, quantity: 0 }] }), { status: 422 });
      t.match(await customer.post("/orders/quote", { ...body, restaurant_id: "nope" }), { status: 404 });
      const closedOne = await openRestaurant(as(), t);
      await customer.post(`/restaurants/${closedOne.restaurantId}/close`);
      t.equal((await customer.post("/orders/quote", quoteBody(closedOne))).status, 200, "only staff close a restaurant");
      const staffClose = await (async () => {
        const o = as();
        const x = await openRestaurant(o, t);
        await o.post(`/restaurants/${x.restaurantId}/close`);
        return x;
      })();
      t.match(await customer.post("/orders/quote", quoteBody(staffClose)), { status: 422, body: { code: "restaurant_closed" } });
      t.match(await owner.put(`/restaurants/${r.restaurantId}/items/${r.drink.id}/availability`, { available: false }), { status: 200, body: { available: false } });
      const changed = await customer.post("/orders/quote", body);
      t.match(changed, { status: 409, body: { code: "menu_changed", diff: { current_version: r.menuVersion, unavailable_items: [r.drink.id] } } });
      await owner.put(`/restaurants/${r.restaurantId}/items/${r.drink.id}/availability`, { available: true });
    });

    t.test("order: 402 declined, 202 pending, 409 expired quote and changed menu, 404 another's quote, 422 key reuse", async (t) => {
      const declined = await place(customer, await quote(customer), "pm_card_declined");
      t.match(declined, { status: 402, body: { code: "payment_declined" } });
      const pending = await place(customer, await quote(customer), "pm_card_timeout_after");
      t.match(pending, { status: 202, body: { status: "payment_pending", payment_state: "pending" } });
      t.match(await place(otherCustomer, await quote(customer)), { status: 404 }, "another customer's quote");
      const key = freshKey();
      const quoteId = await quote(customer);
      t.equal((await place(customer, quoteId, "pm_card_visa", key)).status, 201);
      t.match(await place(customer, await quote(customer), "pm_card_visa", key), { status: 422, body: { code: "idempotency_key_reused" } });
      const chef = as();
      const fresh = await openRestaurant(chef, t);
      const quoted = await quote(customer, fresh);
      await chef.post(`/restaurants/${fresh.restaurantId}/menus`, { items: [{ id: fresh.pizza.id, name: "Margherita", price_minor: 990 }] });
      t.match(await place(customer, quoted), {
        status: 409,
        body: { code: "menu_changed", diff: { current_version: fresh.menuVersion + 1, changed_prices: [{ item_id: fresh.pizza.id, quoted_price_minor: 900, current_price_minor: 990 }] } },
      }, "a changed menu never charges the old price silently");
    });

    t.test("accept and reject: 404 for another restaurant, 409 once rejected, 422 bad preparation time", async (t) => {
      const placed = await place(customer, await quote(customer));
      const orderId = String(placed.body.id);
      t.match(await otherOwner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 10 }), { status: 404 });
      t.match(await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 0 }), { status: 422 });
      t.match(await owner.post(`/restaurant-orders/${orderId}/reject`, { reason: "out of dough" }), { status: 200, body: { status: "rejected" } });
      t.match(await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 10 }), { status: 409, body: { code: "order_not_acceptable" } });
      t.match(await otherCustomer.get(`/orders/${orderId}`), { status: 404 }, "another customer's order");
      t.match(await customer.get(`/orders/${orderId}`), { status: 200, body: { status: "rejected", reason: "out of dough" } });
    });

    t.test("offers, delivery status and tracking: 409 loser, 410 expired, 404 another's, 409/422 status", async (t) => {
      // An offer left to expire, and a quote left to expire, in the same wait.
      const lateOrder = String((await place(customer, await quote(customer, other))).body.id);
      const late = await otherOwner.post(`/restaurant-orders/${lateOrder}/accept`, { prep_time_minutes: 5 });
      const lateOffers = await couriers[0]!.get("/couriers/me/offers");
      const lateOffer = (lateOffers.body.data as Array<Record<string, unknown>>).find((o) => o.delivery_id === late.body.delivery_id);
      t.ok(lateOffer, "the courier was offered the late delivery");
      const staleQuote = await quote(customer);
      await new Promise((resolve) => setTimeout(resolve, ttl * 1000 + 300));
      t.match(await couriers[0]!.post(`/courier-offers/${String(lateOffer?.id)}/accept`, {}, freshKey()), { status: 410, body: { code: "offer_expired" } });
      t.match(await place(customer, staleQuote), { status: 409, body: { code: "quote_expired" } });

      const orderId = String((await place(customer, await quote(customer))).body.id);
      const accepted = await owner.post(`/restaurant-orders/${orderId}/accept`, { prep_time_minutes: 5 });
      const deliveryId = String(accepted.body.delivery_id);
      const offerOf = async (c: Client) =>
        String(((await c.get("/couriers/me/offers")).body.data as Array<Record<string, unknown>>).find((o) => o.delivery_id === deliveryId)?.id);
      const [first, second] = [await offerOf(couriers[0]!), await offerOf(couriers[1]!)];
      // A second delivery offered to the same courier while still free (one active job at a time).
      const busyOrder = String((await place(customer, await quote(customer))).body.id);
      const busyDelivery = String((await owner.post(`/restaurant-orders/${busyOrder}/accept`, { prep_time_minutes: 5 })).body.delivery_id);
      const busyOffer = ((await couriers[0]!.get("/couriers/me/offers")).body.data as Array<Record<string, unknown>>).find((o) => o.delivery_id === busyDelivery);
      t.ok(busyOffer, "the courier holds an offer of a second delivery");
      t.match(await couriers[1]!.post(`/courier-offers/${first}/accept`, {}, freshKey()), { status: 404 }, "another courier's offer");
      t.match(await couriers[0]!.post(`/courier-offers/${first}/accept`, {}, freshKey()), { status: 200, body: { courier_id: courierIds[0] } });
      const busy = await couriers[0]!.post(`/courier-offers/${String(busyOffer?.id)}/accept`, {}, freshKey());
      t.match(busy, { status: 409, body: { code: "courier_busy", status: 409, type: "urn:domainkit:problem:courier_busy" } }, "a busy courier cannot win a second delivery");
      t.match(await couriers[1]!.post(`/courier-offers/${second}/accept`, {}, freshKey()), { status: 409, body: { code: "delivery_already_assigned" } });

      const c = couriers[0]!;
      t.match(await couriers[1]!.patch(`/deliveries/${deliveryId}/status`, { transition_id: "x", status: "picked_up", expected_version: 2 }), { status: 404 }, "not the assigned courier");
      t.match(await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "x", status: "teleported", expected_version: 2 }), { status: 422, body: { code: "unknown_delivery_status" } });
      t.match(await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "x", status: "delivered", expected_version: 2 }), { status: 409, body: { code: "illegal_delivery_transition" } });
      t.match(await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "x", status: "picked_up", expected_version: 1 }), {
        status: 409,
        body: { code: "delivery_version_conflict", current_version: 2 },
      });
      t.match(await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "created", status: "picked_up", expected_version: 2 }), {
        status: 422,
        body: { code: "validation_failed", errors: [{ path: "transition_id" }] },
      }, "a transition id the system writes is reserved");
      t.equal((await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "picked_up", expected_version: 2 })).status, 200);
      t.match(await c.patch(`/deliveries/${deliveryId}/status`, { transition_id: "p", status: "delivered", expected_version: 3 }), { status: 409, body: { code: "transition_id_reused" } });
      t.match(await otherCustomer.get(`/deliveries/${deliveryId}/tracking`), { status: 404 }, "another customer's tracking");
      t.match(await couriers[1]!.get(`/couriers/me/deliveries/${deliveryId}`), { status: 404 }, "another courier's job");
      t.equal((await customer.get(`/deliveries/${deliveryId}/tracking`)).status, 200);

      const live = await connectRealtime(server.url, await stranger.token());
      t.teardown(() => live.close());
      for (const channel of [`restaurant:${r.restaurantId}`, `courier:${courierIds[0]}`, `delivery:${deliveryId}`]) {
        live.send({ type: "subscribe", channel });
        t.match(await live.next((m) => (m.type === "subscribed" || m.type === "error") && m.channel === channel), { type: "error" }, `${channel} is refused to another user`);
      }
      const rival = await connectRealtime(server.url, await couriers[1]!.token());
      t.teardown(() => rival.close());
      rival.send({ type: "subscribe", channel: `courier:${courierIds[0]}` });
      t.match(await rival.next((m) => m.type === "subscribed" || m.type === "error"), { type: "error" }, "a courier cannot listen to another courier's offers");
    });
  });
}
