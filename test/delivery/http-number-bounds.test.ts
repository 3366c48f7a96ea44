/**
 * Bad input answers a precise problem, never a 500 (docs/conventions.md, Errors; spec, Versioning:
 * "quote and order validate the menu version"): integers past the database's column range (a menu
 * version, a quantity, a preparation time, a radius, a price, a version) and numbers past any
 * coordinate are answered alike on both dialects. A menu version that does not exist is 409
 * menu_changed with its diff, as any version that is not current; it was a 500 on Postgres, whose
 * integer column refused to compare with 2^31.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

const huge = 2 ** 31;
const enormous = 1e20;

for (const dialect of dialects) {
  t.test(`numbers beyond the columns' range answer a problem, not a 500 [${dialect}]`, async (t) => {
    const { as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    const courier = as();
    await onlineCourier(courier);
    const probe = async (name: string, answer: Promise<{ status: number; body: Record<string, any> }>, expected: { status: number; code: string }) =>
      t.match(await answer, { status: expected.status, body: { code: expected.code } }, name);
    const invalid = { status: 422, code: "validation_failed" };
    for (const version of [huge, -huge, 0, r.menuVersion + 1]) {
      const answer = await customer.post("/orders/quote", { ...quoteBody(r), menu_version: version });
      t.match(answer, { status: 409, body: { code: "menu_changed", diff: { current_version: r.menuVersion } } }, `quote menu_version ${version}: menu_changed with the current version`);
    }
    await probe("quote menu_version 1e20 (not an integer the schema reads)", customer.post("/orders/quote", { ...quoteBody(r), menu_version: enormous }), invalid);
    for (const quantity of [huge, enormous]) await probe(`quote quantity ${quantity}`, customer.post("/orders/quote", { ...quoteBody(r), lines: [{ item_id: r.pizza.id, quantity }] }), invalid);
    await probe("quote dropoff lat 1e308", customer.post("/orders/quote", { ...quoteBody(r), dropoff: { lat: 1e308, lng: 0, address: "x" } }), invalid);
    await probe("restaurant radius 2^31", owner.post("/restaurants", { name: "R", lat: 1, lng: 1, service_radius_m: huge, currency: "EUR" }), invalid);
    await probe("restaurant radius 1e20", owner.post("/restaurants", { name: "R", lat: 1, lng: 1, service_radius_m: enormous, currency: "EUR" }), invalid);
    await probe("menu price 1e20", owner.post(`/restaurants/${r.restaurantId}/menus`, { items: [{ name: "x", price_minor: enormous }] }), invalid);
    await probe("menu price 2^53", owner.post(`/restaurants/${r.restaurantId}/menus`, { items: [{ name: "x", price_minor: 2 ** 53 }] }), invalid);
    const quote = await customer.post("/orders/quote", quoteBody(r));
    const order = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    await probe("accept prep 2^31", owner.post(`/restaurant-orders/${order.body.id}/accept`, { prep_time_minutes: huge }), invalid);
    await probe("accept prep 1e20", owner.post(`/restaurant-orders/${order.body.id}/accept`, { prep_time_minutes: enormous }), invalid);
    const accepted = await owner.post(`/restaurant-orders/${order.body.id}/accept`, { prep_time_minutes: 10 });
    const offers = await courier.get("/couriers/me/offers");
    await courier.post(`/courier-offers/${offers.body.data[0].id}/accept`, {}, freshKey());
    const status = `/deliveries/${accepted.body.delivery_id}/status`;
    await probe("status expected_version 2^31", courier.patch(status, { transition_id: "a", status: "picked_up", expected_version: huge }), { status: 409, code: "delivery_version_conflict" });
    await probe("status expected_version 1e20", courier.patch(status, { transition_id: "b", status: "picked_up", expected_version: enormous }), invalid);
    await probe("locations lat 1e308", courier.post("/couriers/me/locations", { samples: [{ lat: 1e308, lng: 0, recorded_at: new Date().toISOString() }] }), invalid);
    await probe("locations no samples", courier.post("/couriers/me/locations", { samples: [] }), invalid);
    await probe("discovery limit 1e20", customer.get(`/restaurants?lat=52.52&lng=13.405&limit=${enormous}`), { status: 400, code: "invalid_limit" });
    await probe("dispatch list limit 2^31", customer.get(`/dispatch/deliveries?limit=${huge}`), { status: 400, code: "invalid_limit" });
  });
}
