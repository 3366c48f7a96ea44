/**
 * Issue rules 1 and 2 over HTTP (the database decides; real parallel requests, SQLite and
 * Postgres): ten couriers accepting offers of one delivery at once — exactly one 200, nine 409
 * delivery_already_assigned, one assignment in the history; twenty parallel accepts of one restaurant order
 * answer one delivery_id.
 */
import { Effect } from "effect";
import t from "tap";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { dialects } from "../support/databases.js";
import { freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`ten couriers race for one delivery and twenty accepts race for one order [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect, { DELIVERY_OFFER_FANOUT: "10" });
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const couriers = Array.from({ length: 10 }, () => as());
    for (const [i, courier] of couriers.entries()) await onlineCourier(courier, 0.001 * (i + 1));

    const placed = await customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: "pm_card_visa" }, freshKey());
    const accepts = await Promise.all(Array.from({ length: 20 }, () => owner.post(`/restaurant-orders/${String(placed.body.id)}/accept`, { prep_time_minutes: 10 })));
    const deliveryIds = new Set(accepts.map((a) => a.body.delivery_id));
    t.same(
      accepts.map((a) => a.status),
      Array.from({ length: 20 }, () => 200),
      "every accept answers 200",
    );
    t.equal(deliveryIds.size, 1, "one delivery, whoever asked");
    const deliveryId = String([...deliveryIds][0]);

    const offers = await Promise.all(couriers.map(async (c) => ((await c.get("/couriers/me/offers")).body.data as Array<{ id: string; delivery_id: string }>).find((o) => o.delivery_id === deliveryId)));
    t.equal(offers.filter((o) => o !== undefined).length, 10, "all ten couriers were offered the delivery");
    const answers = await Promise.all(couriers.map((c, i) => c.post(`/courier-offers/${String(offers[i]?.id)}/accept`, {}, freshKey())));
    t.equal(answers.filter((a) => a.status === 200).length, 1, "exactly one courier wins");
    t.equal(answers.filter((a) => a.status === 409 && a.body.code === "delivery_already_assigned").length, 9, "nine get 409");
    const winner = answers.find((a) => a.status === 200)?.body.courier_id;
    t.ok(typeof winner === "string", "the winner's answer names its courier");
    t.notOk(
      answers.some((a) => a.status === 409 && JSON.stringify(a.body).includes(String(winner))),
      "a losing courier's 409 does not name the winning courier (minimum details for couriers)",
    );
    const history = await server.core.runtime.runPromise(Effect.flatMap(DispatchRepository, (d) => d.statusHistory(deliveryId)));
    t.equal(history.filter((h) => h.toStatus === "assigned").length, 1, "assigned once");
    t.match(await customer.get(`/orders/${String(placed.body.id)}`), { body: { delivery: { courier_id: winner, status: "assigned" } } }, "courier_id set once, to the winner");
  });
}
