/**
 * Realtime messages tell no party another's account (spec: "masked customer-courier chat";
 * "Courier (… minimum pickup and drop-off details)"; security audit round 2, F3): an envelope's
 * `actor_id` is an account id, sent only on channel kinds whose subscribers may see who acted
 * (projects' members). On the delivery channels the customer's chat message reaches the courier,
 * and the courier's status change reaches the customer, with `actor_id: null` and neither
 * account id anywhere in the frame. SQLite and Postgres.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { assignedDelivery, freshKey, subscribedTo } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`a delivery's realtime messages carry no account id of the other party [${dialect}]`, async (t) => {
    const { server, customer, courier, courierId, deliveryId } = await assignedDelivery(t, dialect);
    const courierLive = await subscribedTo(t, server.url, courier, `courier:${courierId}`);
    const customerLive = await subscribedTo(t, server.url, customer, `delivery:${deliveryId}`);

    t.equal((await customer.post(`/deliveries/${deliveryId}/messages`, { body: "at the side door" }, freshKey())).status, 201, "the customer writes");
    const chat = await courierLive.next((m) => m.type === "event" && m.event?.type === "ChatMessageSent", 10_000);
    t.match(chat, { event: { type: "ChatMessageSent", actor_id: null, data: { sender_role: "customer" } } }, "the courier hears of it, not from whom");
    t.notOk(JSON.stringify(chat ?? {}).includes(customer.userId), "the customer's account id is nowhere in the frame");

    const version = (await courier.get(`/couriers/me/deliveries/${deliveryId}`)).body.version;
    t.equal((await courier.patch(`/deliveries/${deliveryId}/status`, { transition_id: "pickup-1", status: "picked_up", expected_version: version })).status, 200);
    const status = await customerLive.next((m) => m.type === "event" && m.event?.type === "DeliveryStatusChanged", 10_000);
    t.match(status, { event: { type: "DeliveryStatusChanged", actor_id: null, data: { to: "picked_up" } } }, "the customer hears of the pickup");
    t.notOk(JSON.stringify(status ?? {}).includes(courier.userId), "the courier's account id is nowhere in the frame");
  });
}
