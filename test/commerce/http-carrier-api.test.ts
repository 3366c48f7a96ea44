/**
 * The HTTP carrier (adapters/commerce/carriers/HttpCarrier.ts) against a tiny carrier API started
 * on 127.0.0.1 in the test: it presents the API key, reads a parcel's status, answers null for a
 * number the carrier does not know, and turns every other answer — a refused key, a server error,
 * an unreadable body, no answer within the timeout — into CarrierUnavailable without the key in
 * it. COMMERCE_CARRIER_URL needs COMMERCE_CARRIER_API_KEY; configured, the reference server's
 * hourly poll asks that API (SQLite and Postgres).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Effect, Either } from "effect";
import t from "tap";
import { carrierApiKeyHeader, makeHttpCarrier } from "../../adapters/commerce/carriers/HttpCarrier.js";
import { pollCarriers } from "../../core/commerce/CarrierTracking.js";
import { ConfigError, loadConfig } from "../../hosts/Config.js";
import type { HasTeardown } from "../support/databases.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

const apiKey = "carrier-api-key-for-tests";

/** A carrier API: parcels by `<carrier>/<number>`; `SLOW` never answers, `BROKEN` answers 500, `GARBLED` an unreadable body. */
const startCarrierApi = async (t: HasTeardown, parcels: Map<string, string>) => {
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(request.url ?? "");
    const reply = (status: number, body: unknown) => response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    if (request.headers[carrierApiKeyHeader.toLowerCase()] !== apiKey) return reply(401, { error: "bad key" });
    const match = /^\/v1\/tracking\/([^/]+)\/([^/]+)$/.exec(request.url ?? "");
    if (match === null) return reply(404, { error: "no route" });
    const number = decodeURIComponent(match[2]!);
    if (number === "SLOW") return; // never answers
    if (number === "BROKEN") return reply(500, { error: "down" });
    if (number === "GARBLED") return response.writeHead(200).end("<html>");
    const status = parcels.get(`${decodeURIComponent(match[1]!)}/${number}`);
    if (status === undefined) return reply(404, { error: "unknown parcel" });
    return reply(200, { status, occurred_at: "2026-11-25T10:00:00.000Z" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined));
  t.teardown(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
};

t.test("the HTTP carrier reads a parcel's status with its API key; anything but an answer is CarrierUnavailable", async (t) => {
  const api = await startCarrierApi(t, new Map([["DHL/JD 1", "out_for_delivery"]]));
  const carrier = makeHttpCarrier({ baseUrl: `${api.url}/`, apiKey, timeoutMs: 300 });
  const track = (number: string, with_ = carrier) => Effect.runPromise(Effect.either(with_.track("DHL", number)));
  t.same(await track("JD 1"), Either.right({ status: "out_for_delivery", occurredAt: new Date("2026-11-25T10:00:00.000Z") }));
  t.same(api.requests.at(-1), "/v1/tracking/DHL/JD%201", "the carrier and number are path segments");
  t.same(await track("UNKNOWN"), Either.right(null), "a number the carrier does not know is null");
  for (const [number, why] of [["BROKEN", "a server error"], ["GARBLED", "an unreadable body"], ["SLOW", "no answer within the timeout"]] as const) {
    const answer = await track(number);
    t.ok(Either.isLeft(answer) && answer.left._tag === "CarrierUnavailable", `${why} is CarrierUnavailable`);
  }
  const refused = await track("JD 1", makeHttpCarrier({ baseUrl: api.url, apiKey: "wrong-key" }));
  t.ok(Either.isLeft(refused) && refused.left._tag === "CarrierUnavailable", "a refused key is CarrierUnavailable");
  t.notOk(JSON.stringify(refused).includes("wrong-key"), "the key never enters the error");
  const closed = await track("JD 1", makeHttpCarrier({ baseUrl: "http://127.0.0.1:9", apiKey }));
  t.ok(Either.isLeft(closed) && closed.left._tag === "CarrierUnavailable", "an unreachable carrier is CarrierUnavailable");
});

t.test("COMMERCE_CARRIER_URL needs COMMERCE_CARRIER_API_KEY; both configure the carrier API", async (t) => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return error instanceof ConfigError ? error.lines : [String(error)];
    }
  };
  t.ok(problems({ COMMERCE_CARRIER_URL: "https://carrier.example/api" }).some((line) => line.startsWith("COMMERCE_CARRIER_API_KEY")), "the key is required with the URL");
  t.ok(problems({ COMMERCE_CARRIER_URL: "ftp://carrier.example", COMMERCE_CARRIER_API_KEY: "k" }).some((line) => line.startsWith("COMMERCE_CARRIER_URL")), "an http(s) URL");
  t.ok(problems({ COMMERCE_CARRIER_URL: "https://carrier.example", COMMERCE_CARRIER_API_KEY: "k", COMMERCE_CARRIER_TIMEOUT_MS: "0" }).some((line) => line.startsWith("COMMERCE_CARRIER_TIMEOUT_MS")));
  t.same(loadConfig({ COMMERCE_CARRIER_URL: "https://carrier.example/api", COMMERCE_CARRIER_API_KEY: "secret-key" }).commerce.carrierApi, {
    baseUrl: "https://carrier.example/api",
    apiKey: "secret-key",
    timeoutMs: 10_000,
  });
  t.equal(loadConfig({}).commerce.carrierApi, undefined, "unset: the sandbox carrier");
});

t.test("with a carrier API configured, the tracking poll asks it and records each status once", (t) =>
  forEachDialectConfig(t, "carrier API poll", async (t, _config, dialect) => {
    const parcels = new Map<string, string>();
    const api = await startCarrierApi(t, parcels);
    const { server, call, user, setupStore, cartWith } = await startCommerceServer(t, dialect, {}, { carrierApi: { baseUrl: api.url, apiKey } });
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5 });
    const customer = await user();
    const placed = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(await cartWith(customer, storeId, variantId, 1)) });
    const orderId = String(placed.body.id);
    await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "UPS", tracking_number: "1Z42" } });
    t.equal(await server.core.runtime.runPromise(pollCarriers), 0, "a parcel the carrier does not know yet records nothing");
    parcels.set("UPS/1Z42", "out_for_delivery");
    t.equal(await server.core.runtime.runPromise(pollCarriers), 1, "the carrier's status is recorded");
    t.equal(await server.core.runtime.runPromise(pollCarriers), 0, "and not twice");
    const timeline = (await call("GET", `/v1/orders/${orderId}`, { token: customer.token })).body.timeline as Array<{ kind: string }>;
    t.ok(timeline.some((entry) => entry.kind === "shipment.out_for_delivery"), "on the order's timeline");
    t.ok(api.requests.every((url) => url === "/v1/tracking/UPS/1Z42"), "the poll asked the configured API");
  }),
);
