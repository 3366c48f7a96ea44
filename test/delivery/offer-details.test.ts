/**
 * Spec, Authentication 2: a courier sees their own offers with the minimum pickup and drop-off
 * details (couriers opt into offers: they decide on what they can see). An offer shows the pickup
 * point (the restaurant, public) and the trip's length from pickup to drop-off, rounded to 100 m;
 * never the drop-off point or address, which only the winner reads from the assigned job
 * (Authentication 3). Before, an offer carried only ids and times.
 */
import t from "tap";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { distanceMetres } from "../../core/delivery/model/Geo.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, here, onlineCouriers, openRestaurant } from "./support.js";
import { freshKey, onlineCourier, openRestaurant as openRestaurantOverHttp, quoteBody, startDeliveryServer } from "./http-support.js";
import { dialects } from "../support/databases.js";

t.test("a courier's offer shows the pickup point and the trip's length, not the drop-off", (t) =>
  forEachDeliveryDialect(t, "offer details", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [courier] = await onlineCouriers(rt, 1);
    const { placed } = await acceptedOrder(rt, "cust-1", fixture);
    const [offer] = await rt.run(listMyOffers(courier!.principal));
    const trip = Math.round(distanceMetres({ lat: placed.order.dropoffLat, lng: placed.order.dropoffLng }, here) / 100) * 100;
    t.match(offer, { pickupLat: here.lat, pickupLng: here.lng, tripDistanceM: trip }, "pickup point and trip length");
    t.ok(trip > 0, "a trip of some length");
    t.notOk("dropoffLat" in offer! || "dropoffAddress" in offer!, "no drop-off point or address");
  }),
);

for (const dialect of dialects) {
  t.test(`GET /couriers/me/offers answers pickup_lat, pickup_lng and trip_distance_m [${dialect}]`, async (t) => {
    const { as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurantOverHttp(owner, t);
    await onlineCourier(courier);
    const quote = await customer.post("/orders/quote", quoteBody(r));
    const order = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    await owner.post(`/restaurant-orders/${order.body.id}/accept`, { prep_time_minutes: 10 });
    const offers = await courier.get("/couriers/me/offers");
    t.equal(offers.status, 200);
    t.match(offers.body.data[0], { pickup_lat: Number, pickup_lng: Number, trip_distance_m: Number });
    t.notOk(Object.keys(offers.body.data[0]).some((k) => k.startsWith("dropoff")), "no drop-off field");
  });
}
