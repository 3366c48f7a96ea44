/**
 * Spec, States: "losing couriers are notified"; Roles: a courier sees their own offers. Over
 * realtime: the courier whose offer lost hears CourierLostDelivery on `courier:<id>`; the customer's
 * CourierAssigned (version 2) names the winner and no losing courier — SQLite and Postgres.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { acceptedOrderDelivery, connectRealtime, freshKey, onlineCourier, openRestaurant, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`the losing courier is told on their own channel and the customer never learns who lost [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const winner = as();
    const loser = as();
    const r = await openRestaurant(owner, t);
    const winnerId = await onlineCourier(winner, 0.001);
    const loserId = await onlineCourier(loser, 0.002);
    const deliveryId = await acceptedOrderDelivery(customer, owner, r);
    const loserOffer = (await loser.get("/couriers/me/offers")).body.data[0];
    t.match(loserOffer, { delivery_id: deliveryId }, "both couriers are offered the delivery");

    const loserLive = await connectRealtime(server.url, await loser.token());
    const customerLive = await connectRealtime(server.url, await customer.token());
    t.teardown(() => {
      loserLive.close();
      customerLive.close();
    });
    loserLive.send({ type: "subscribe", channel: `courier:${loserId}` });
    t.match(await loserLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" });
    customerLive.send({ type: "subscribe", channel: `delivery:${deliveryId}` });
    t.match(await customerLive.next((m) => m.type === "subscribed" || m.type === "error"), { type: "subscribed" });

    const winnerOffer = (await winner.get("/couriers/me/offers")).body.data[0];
    t.equal((await winner.post(`/courier-offers/${String(winnerOffer.id)}/accept`, {}, freshKey())).status, 200, "the nearer courier wins");

    const lost = await loserLive.next((m) => m.type === "event" && m.event?.type === "CourierLostDelivery", 10_000);
    t.match(lost, { channel: `courier:${loserId}`, event: { schema_version: 1, data: { delivery_id: deliveryId, courier_id: loserId, offer_id: loserOffer.id } } }, "the loser hears it on their channel");
    const assigned = await customerLive.next((m) => m.type === "event" && m.event?.type === "CourierAssigned", 10_000);
    t.match(assigned, { event: { schema_version: 2, data: { delivery_id: deliveryId, courier_id: winnerId } } }, "the customer hears of the winner");
    t.notOk(JSON.stringify(assigned ?? {}).includes(loserId), "and not of the courier who lost");
    t.notOk(
      customerLive.messages.some((m) => m.type === "event" && m.event?.type === "CourierLostDelivery"),
      "the loser's notice is not on the customer's channel",
    );
  });
}
