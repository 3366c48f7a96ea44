/**
 * What the service does: "Precise courier and customer locations are retained briefly." The stored
 * answers of POST /orders/quote and POST /orders (kept 24 hours for their Idempotency-Key) keep no
 * drop-off: a replay shows the quote's or order's drop-off as it is stored now — precise until the
 * location retention pass redacts it, then to 3 decimals with the address masked, as GET /orders/:id
 * shows it. On the reference server with the in-process payment module — SQLite and Postgres.
 */
import t from "tap";
import { redactDropoffs } from "../../core/delivery/LocationRetention.js";
import { redactedDropoffAddress } from "../../core/delivery/model/PriceSnapshot.js";
import { at } from "../worker/fixtures.js";
import { dialects } from "../support/databases.js";
import { freshKey, here, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";

const precise = { lat: 52.5291234, lng: 13.4056789, address: "Torstraße 12, 3rd floor left, ring Meyer" };
const coarse = { dropoff_lat: 52.529, dropoff_lng: 13.406, dropoff_address: redactedDropoffAddress };
const kept = { dropoff_lat: precise.lat, dropoff_lng: precise.lng, dropoff_address: precise.address };

for (const dialect of dialects) {
  t.test(`the stored answers of quoting and placing keep no drop-off: a replay shows it as stored, redacted after the retention [${dialect}]`, async (t) => {
    const { server, as, logText } = await startDeliveryServer(t, dialect, { DELIVERY_LOCATION_RETENTION_SECONDS: "3600" });
    const owner = as();
    const customer = as();
    const r = await openRestaurant(owner, t);
    t.ok(here.lat < precise.lat, "the drop-off is in the service zone");
    const quoteKey = freshKey();
    const quoteRequest = { ...quoteBody(r), dropoff: precise };
    const quoted = await customer.post("/orders/quote", quoteRequest, quoteKey);
    t.match(quoted, { status: 200, body: kept }, "the quote answers the precise drop-off");
    const placeKey = freshKey();
    const placeRequest = { quote_id: String(quoted.body.id), payment_method: "pm_card_visa" };
    const placed = await customer.post("/orders", placeRequest, placeKey);
    t.match(placed, { status: 201, body: kept }, "the order answers the precise drop-off");
    const orderId = String(placed.body.id);

    const stored = async () => JSON.stringify(await server.core.database.db.selectFrom("idempotency_keys").select(["scope", "response"]).execute());
    t.notMatch(await stored(), /Torstra|52\.5291234|13\.4056789/, "no stored answer keeps the address or the precise point");
    const replayedQuote = await customer.post("/orders/quote", quoteRequest, quoteKey);
    t.match(replayedQuote, { status: 200, body: { ...kept, id: quoted.body.id } }, "a replay within the retention shows the stored quote's drop-off");
    t.equal(replayedQuote.headers.get("idempotent-replayed"), "true");
    t.match(await customer.post("/orders", placeRequest, placeKey), { status: 201, body: { ...kept, id: orderId } }, "as does the order's replay");

    t.equal((await owner.post(`/restaurant-orders/${orderId}/reject`, { reason: "out of dough" })).status, 200, "rejected: it never becomes a delivery");
    await server.core.runtime.runPromise(at(Date.now() + 3_600_000 + 60_000)(redactDropoffs));

    t.match(await customer.get(`/orders/${orderId}`), { status: 200, body: { ...coarse, status: "rejected" } }, "the order read shows the point to 3 decimals and the address masked");
    const laterQuote = await customer.post("/orders/quote", quoteRequest, quoteKey);
    t.match(laterQuote, { status: 200, body: { ...coarse, id: quoted.body.id } }, "a replay after the retention shows the redacted quote");
    t.equal(laterQuote.headers.get("idempotent-replayed"), "true");
    const laterOrder = await customer.post("/orders", placeRequest, placeKey);
    t.match(laterOrder, { status: 201, body: { ...coarse, id: orderId } }, "and the redacted order");
    t.notMatch(JSON.stringify(laterOrder.body), /Torstra/, "nothing precise in the replay");
    t.equal(laterOrder.headers.get("idempotent-replayed"), "true");
    // Neither the drop-off nor the payment token ever reaches the log, which holds the requests.
    t.ok(logText().includes(orderId), "the log holds the requests (ids are fine)");
    t.notMatch(logText(), /Torstra|52\.5291234|13\.4056789|pm_card_visa/, "the log holds no drop-off and no payment token");
  });
}

for (const dialect of dialects) {
  t.test(`registering and going online or offline store no answer: a courier's position is retained briefly, a stored answer lives 24 h [${dialect}]`, async (t) => {
    const { server, as } = await startDeliveryServer(t, dialect, { DELIVERY_LOCATION_RETENTION_SECONDS: "3600" });
    const courier = as();
    const key = freshKey();
    t.equal((await courier.post("/couriers", { name: "Courier" }, freshKey())).status, 201);
    const first = await courier.post("/couriers/me/online", undefined, key);
    t.match(first, { status: 200, body: { online: true, lat: null, lng: null } }, "online, not located yet");
    const sample = { lat: here.lat + 0.0123, lng: here.lng, recorded_at: new Date(Date.now() - 1000).toISOString() };
    t.equal((await courier.post("/couriers/me/locations", { samples: [sample] })).status, 200);
    const again = await courier.post("/couriers/me/online", undefined, key);
    t.equal(again.status, 200);
    t.not(again.headers.get("idempotent-replayed"), "true", "the same key runs again: no stored answer to replay");
    t.ok(typeof again.body.lat === "number", "the answer shows the position now");
    t.equal((await courier.post("/couriers/me/offline", undefined, freshKey())).status, 200);
    const stored = await server.core.database.db.selectFrom("idempotency_keys").select(["scope"]).execute();
    t.same(stored, [], "no idempotency record was kept for the courier's answers");
  });
}
