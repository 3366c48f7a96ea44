/**
 * Carrier tracking over HTTP on the reference server (SQLite and Postgres): signed carrier
 * webhooks (POST /v1/webhooks/carrier) are applied once per event id and put on the order's
 * timeline, `delivered` delivers the shipment; a bad signature or a stale timestamp is 400 with
 * nothing applied; an unknown parcel is acknowledged and ignored; the hourly poll asks the
 * carrier about shipments in transit and records each status once.
 */
import t from "tap";
import { makeSandboxCarrier, signCarrierWebhook } from "../../adapters/commerce/carriers/SandboxCarrier.js";
import { pollCarriers } from "../../core/commerce/CarrierTracking.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

const secret = "carrier-webhook-secret-for-tests";

t.test("signed carrier webhooks and the tracking poll update the shipment once per event", (t) =>
  forEachDialectConfig(t, "carrier tracking", async (t, _config, dialect) => {
    const carrier = makeSandboxCarrier();
    const { server, call, user, setupStore, cartWith } = await startCommerceServer(t, dialect, {}, { carrierWebhookSecrets: [secret], carrierTracking: carrier });
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5 });
    const customer = await user();
    const placed = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(await cartWith(customer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "DHL", tracking_number: "JD0001" } });
    const deliver = (body: Record<string, unknown>, options: { sign?: string; at?: number } = {}) => {
      const raw = JSON.stringify(body);
      const signature = signCarrierWebhook(options.sign ?? secret, raw, options.at ?? Date.now() / 1000);
      return fetch(`${server.url}/v1/webhooks/carrier`, { method: "POST", headers: { "Content-Type": "application/json", "Webhook-Signature": signature }, body: raw }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
      );
    };
    const event = { id: "evt_1", carrier: "DHL", tracking_number: "JD0001", status: "out_for_delivery", occurred_at: new Date().toISOString() };
    t.match(await deliver(event), { status: 200, body: { received: true, event_id: "evt_1", duplicate: false, status: "applied" } });
    t.match(await deliver(event), { status: 200, body: { duplicate: true } }, "a replayed event changes nothing");
    t.match(await deliver({ ...event, id: "evt_2" }, { sign: "not-the-secret" }), { status: 400, body: { code: "carrier_webhook_refused" } });
    t.match(await deliver({ ...event, id: "evt_3" }, { at: Date.now() / 1000 - 3600 }), { status: 400, body: { code: "carrier_webhook_refused" } }, "a stale timestamp is refused");
    t.match(await deliver({ ...event, id: "evt_4", tracking_number: "UNKNOWN" }), { status: 200, body: { status: "ignored" } });
    // The route machinery refuses a NUL in any body string before the carrier reads it (adapters/koa/Decode.ts).
    t.match(await deliver({ ...event, id: "evt\u0000nul" }), { status: 422, body: { code: "validation_failed", errors: [{ path: "id" }] } }, "an event with a NUL character is refused, not a 500");
    t.match(await deliver({ ...event, id: "evt_5", status: "delivered" }), { status: 200, body: { status: "applied" } });
    const timeline = async () =>
      ((await call("GET", `/v1/orders/${orderId}`, { token: customer.token })).body.timeline as Array<{ kind: string }>).map((e) => e.kind).filter((k) => k.startsWith("shipment."));
    t.same(await timeline(), ["shipment.dispatched", "shipment.out_for_delivery", "shipment.delivered"], "each verified update is on the timeline once");

    // A second order still in transit: the poll asks the carrier and records each status once.
    const second = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(await cartWith(customer, storeId, variantId, 1)) });
    await call("POST", `/v1/orders/${String(second.body.id)}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "UPS", tracking_number: "1Z999" } });
    t.equal(await server.core.runtime.runPromise(pollCarriers), 1, "the poll records in_transit");
    t.equal(await server.core.runtime.runPromise(pollCarriers), 0, "and not twice");
    carrier.setStatus("UPS", "1Z999", "delivered");
    t.equal(await server.core.runtime.runPromise(pollCarriers), 1, "then delivered");
    t.equal(await server.core.runtime.runPromise(pollCarriers), 0, "a delivered shipment is no longer polled");
  }),
);
