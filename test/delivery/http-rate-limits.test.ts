/**
 * Issue rule 7: discovery, order creation, offers and location ingestion are rate-limited
 * independently — over one budget a caller gets 429 rate_limited with Retry-After while the
 * others still answer; anonymous discovery counts against the client IP (SQLite and Postgres).
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

const tight = { points: 2, windowSeconds: 60 };

for (const dialect of dialects) {
  t.test(`discovery, orders, offers and locations have independent budgets [${dialect}]`, async (t) => {
    const { as, anonymous } = await startDeliveryServer(t, dialect, {}, {
      actionBudgets: { delivery_discovery: tight, delivery_orders: tight, delivery_offers: tight, delivery_locations: { points: 3, windowSeconds: 60 } },
    });
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    await onlineCourier(courier); // spends one location point

    for (let i = 0; i < 2; i++) t.equal((await anonymous.get("/restaurants?lat=52.52&lng=13.405")).status, 200, `discovery ${i + 1} within budget`);
    const refused = await anonymous.get("/restaurants?lat=52.52&lng=13.405");
    t.match(refused, { status: 429, body: { code: "rate_limited" } }, "the third discovery is refused");
    t.ok(Number(refused.headers.get("retry-after")) >= 1, "with Retry-After");

    const place = async () => customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: "pm_card_visa" }, freshKey());
    t.equal((await place()).status, 201, "order creation has its own budget");
    const second = await place();
    t.equal(second.status, 201);
    t.match(await place(), { status: 429, body: { code: "rate_limited" } }, "the third order is refused");
    t.equal((await customer.post("/orders/quote", quoteBody(r))).status, 200, "quoting is not order creation");

    const accepted = await owner.post(`/restaurant-orders/${String(second.body.id)}/accept`, { prep_time_minutes: 5 });
    const offer = (await courier.get("/couriers/me/offers")).body.data.find((o: { delivery_id: string }) => o.delivery_id === accepted.body.delivery_id);
    const key = freshKey();
    t.equal((await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, key)).status, 200);
    t.equal((await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, key)).status, 200, "a replay");
    t.match(await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, key), { status: 429 }, "offers have their own budget");

    const sample = () => ({ samples: [{ lat: 52.521, lng: 13.405, recorded_at: new Date().toISOString() }] });
    t.equal((await courier.post("/couriers/me/locations", sample())).status, 200);
    t.equal((await courier.post("/couriers/me/locations", sample())).status, 200);
    t.match(await courier.post("/couriers/me/locations", sample()), { status: 429, body: { code: "rate_limited" } }, "location ingestion is limited apart");
  });
}
