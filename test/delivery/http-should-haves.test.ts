/**
 * The should-haves over HTTP and ws on the reference server (SQLite and Postgres): a scheduled
 * order carries its slot (422 for a bad one) and is offered to nobody when accepted hours ahead;
 * masked chat between the customer and the assigned courier is redacted and pushed on
 * `delivery:<id>` and `courier:<id>`; a substitution is proposed by the restaurant and accepted
 * by the customer at the authorized price.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, connectRealtime, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

const slotMs = 15 * 60_000;

for (const dialect of dialects) {
  t.test(`scheduled orders, masked chat and substitutions over HTTP [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const courierUser = as();
    const r = await openRestaurant(owner, t);
    const courierId = await onlineCourier(courierUser);

    // Scheduled: a slot must be a quarter hour at least 30 minutes ahead.
    const slot = new Date(Math.ceil((Date.now() + 3 * 3600_000) / slotMs) * slotMs).toISOString();
    t.match(await customer.post("/orders/quote", { ...quoteBody(r), scheduled_for: new Date(Date.now() + 60_000).toISOString() }), {
      status: 422,
      body: { code: "validation_failed", errors: [{ path: "scheduled_for" }] },
    });
    const scheduledQuote = await customer.post("/orders/quote", { ...quoteBody(r), scheduled_for: slot });
    t.match(scheduledQuote, { status: 200, body: { scheduled_for: slot } });
    const scheduled = await customer.post("/orders", { quote_id: scheduledQuote.body.id, payment_method: "pm_card_visa" }, freshKey());
    t.match(scheduled, { status: 201, body: { scheduled_for: slot } });
    const accepted = await owner.post(`/restaurant-orders/${String(scheduled.body.id)}/accept`, { prep_time_minutes: 20 });
    t.match(accepted, { status: 200, body: { status: "accepted", scheduled_for: slot } }, "the restaurant sees the slot");
    t.same((await courierUser.get("/couriers/me/offers")).body.data, [], "not offered hours before the slot");

    // An order for now: the courier wins it, then customer and courier chat.
    const deliveryId = await acceptedOrderDelivery(customer, owner, r);
    const offer = (await courierUser.get("/couriers/me/offers")).body.data.find((o: { delivery_id: string }) => o.delivery_id === deliveryId);
    t.equal((await courierUser.post(`/courier-offers/${String(offer.id)}/accept`, {}, freshKey())).status, 200);

    const customerLive = await connectRealtime(server.url, await customer.token());
    const courierLive = await connectRealtime(server.url, await courierUser.token());
    t.teardown(() => {
      customerLive.close();
      courierLive.close();
    });
    customerLive.send({ type: "subscribe", channel: `delivery:${deliveryId}` });
    t.match(await customerLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" });
    courierLive.send({ type: "subscribe", channel: `courier:${courierId}` });
    t.match(await courierLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" });

    const sent = await customer.post(`/deliveries/${deliveryId}/messages`, { body: "Call me: +49 170 1234567, or me@example.org" });
    t.match(sent, { status: 201, body: { sender_role: "customer", body: "Call me: [number removed], or [e-mail removed]" } });
    t.notOk("sender_id" in sent.body, "the sender's user id is not shown");
    for (const live of [customerLive, courierLive]) {
      const pushed = await live.next((m) => m.type === "event" && m.event?.type === "ChatMessageSent");
      t.match(pushed, { event: { schema_version: 2, data: { delivery_id: deliveryId, message_id: sent.body.id } } }, "pushed as the message's id");
      t.notOk("body" in (pushed?.event?.data ?? {}), "without its body (read from the chat, which the chat retention bounds)");
    }
    t.match(await courierUser.get(`/deliveries/${deliveryId}/messages`), { status: 200, body: { data: [{ sender_role: "customer" }], next_cursor: null } });
    t.match(await as().get(`/deliveries/${deliveryId}/messages`), { status: 404 }, "anyone else: 404");

    // A substitution on the scheduled order, accepted at the authorized price.
    const menu = await owner.post(`/restaurants/${r.restaurantId}/menus`, {
      items: [
        { name: "Margherita", price_minor: 900 },
        { name: "Lemonade", price_minor: 350 },
        { name: "Quattro Formaggi", price_minor: 1400 },
      ],
    });
    const replacement = (menu.body.items as Array<{ id: string; name: string }>).find((i) => i.name === "Quattro Formaggi")!;
    const proposed = await owner.post(`/restaurant-orders/${String(scheduled.body.id)}/substitutions`, { line_no: 1, item_id: replacement.id, reason: "out of mozzarella" });
    t.match(proposed, { status: 201, body: { status: "proposed", replacement_unit_price_minor: 1400 } });
    const decided = await customer.post(`/orders/${String(scheduled.body.id)}/substitutions/${String(proposed.body.id)}/accept`);
    t.match(decided, { status: 200, body: { status: "accepted", charged_line_total_minor: proposed.body.charged_line_total_minor } });
    t.match(await customer.get(`/orders/${String(scheduled.body.id)}`), { body: { total_minor: scheduled.body.total_minor } }, "the total is unchanged");
  });
}
