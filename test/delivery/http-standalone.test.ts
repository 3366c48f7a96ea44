/**
 * Mounting: an app that embeds delivery alone (identity + delivery, with its own payment
 * adapters) mounts it at /v1 and gets exactly the spec's paths (GET /v1/restaurants, POST
 * /v1/orders/quote, POST /v1/orders, POST /v1/restaurant-orders/:id/accept, POST
 * /v1/courier-offers/:id/accept, PATCH /v1/deliveries/:id/status), and its OpenAPI document
 * shows them; the reference server shows them under /v1/delivery. With the host's gateway down,
 * a rejected order shows `void_pending` until the void goes through (SQLite and Postgres).
 */
import t from "tap";
import { compose } from "../../hosts/Composition.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { dialects } from "../support/databases.js";
import { makeFakePaymentGateway } from "./FakePaymentGateway.js";
import { clientOf, eventually, freshKey, onlineCourier, openRestaurant, quoteBody, startDeliveryServer } from "./http-support.js";
import { makeFakeMerchantProvisioning, testLocationKey } from "./support.js";
import { randomUUID } from "node:crypto";

const specPaths = [
  ["get", "/v1/restaurants"],
  ["post", "/v1/orders/quote"],
  ["post", "/v1/orders"],
  ["post", "/v1/restaurant-orders/{id}/accept"],
  ["post", "/v1/courier-offers/{id}/accept"],
  ["patch", "/v1/deliveries/{id}/status"],
] as const;

type OpenApi = { readonly paths: Record<string, Record<string, unknown> | undefined> };

for (const dialect of dialects) {
  t.test(`delivery embedded alone is mounted at /v1 with the spec's paths [${dialect}]`, async (t) => {
    const gateway = makeFakePaymentGateway();
    const modules = compose()
      .add(identityModule)
      .add(makeDeliveryModule({ paymentGateway: gateway, merchantProvisioning: makeFakeMerchantProvisioning(), locationKey: testLocationKey }));
    const { server } = await startDeliveryServer(t, dialect, {}, { modules });
    const as = (userId = randomUUID()) => clientOf(`${server.url}/v1`, userId);
    const owner = as();
    const customer = as();
    const courier = as();
    const r = await openRestaurant(owner, t);
    const courierId = await onlineCourier(courier);

    t.match(await clientOf(`${server.url}/v1`, null).get("/restaurants?lat=52.52&lng=13.405"), { status: 200, body: { data: [{ id: r.restaurantId }] } }, "GET /v1/restaurants");
    const quote = await customer.post("/orders/quote", quoteBody(r));
    t.equal(quote.status, 200, "POST /v1/orders/quote");
    const placed = await customer.post("/orders", { quote_id: quote.body.id, payment_method: "pm_card_visa" }, freshKey());
    t.match(placed, { status: 201, body: { status: "authorized" } }, "POST /v1/orders");
    const accepted = await owner.post(`/restaurant-orders/${String(placed.body.id)}/accept`, { prep_time_minutes: 10 });
    t.equal(accepted.status, 200, "POST /v1/restaurant-orders/:id/accept");
    const offer = (await courier.get("/couriers/me/offers")).body.data[0];
    const won = await courier.post(`/courier-offers/${String(offer.id)}/accept`, {}, freshKey());
    t.match(won, { status: 200, body: { courier_id: courierId } }, "POST /v1/courier-offers/:id/accept");
    const status = await courier.patch(`/deliveries/${String(accepted.body.delivery_id)}/status`, { transition_id: "p", status: "picked_up", expected_version: won.body.version });
    t.equal(status.status, 200, "PATCH /v1/deliveries/:id/status");
    t.equal((await fetch(`${server.url}/v1/delivery/restaurants?lat=52.52&lng=13.405`)).status, 404, "no /v1/delivery prefix when embedded alone");

    const openApi = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApi;
    for (const [method, path] of specPaths) t.ok(openApi.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);

    // The host's gateway is down while the restaurant rejects: the order shows void_pending, then voided.
    const second = await customer.post("/orders", { quote_id: (await customer.post("/orders/quote", quoteBody(r))).body.id, payment_method: "pm_card_visa" }, freshKey());
    gateway.failNext("cancel", 1);
    const rejected = await owner.post(`/restaurant-orders/${String(second.body.id)}/reject`, { reason: "closing early" });
    t.match(rejected, { status: 200, body: { status: "rejected", payment_state: "void_pending" } }, "a pending void is reported while the provider is down");
    const voided = await eventually(
      () => customer.get(`/orders/${String(second.body.id)}`),
      (a) => a.body.payment_state === "voided",
      10_000,
    );
    t.match(voided, { body: { payment_state: "voided" } }, "the void job retries until it goes through");
  });
}

t.test("the reference server documents the delivery paths under /v1/delivery", async (t) => {
  const { server } = await startDeliveryServer(t, "sqlite");
  const openApi = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApi;
  for (const [method, path] of specPaths) {
    const mounted = path.replace("/v1/", "/v1/delivery/");
    t.ok(openApi.paths[mounted]?.[method], `${method.toUpperCase()} ${mounted} is documented`);
  }
});
