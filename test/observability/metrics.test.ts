/**
 * GET /metrics of the reference server, on SQLite and Postgres: each metric moves when its event
 * happens (scrape before, act, scrape after), and METRICS_TOKEN guards the endpoint.
 */
import t from "tap";
import WebSocket from "ws";
import { v7 as uuidv7 } from "uuid";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import { scrape, valueOf, type Scrape } from "./support.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe90";

const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

t.test("HTTP, idempotency, transaction, outbox and rate-limit metrics move with the requests that cause them", (t) =>
  forEachDialectConfig(t, "request metrics", async (t, config) => {
    // No worker: the outbox backlog stays until we look at it.
    const { server } = await startReferenceServer(t, { ...config, workerInProcess: false }, { limits: { rateLimitPoints: 12 } });
    const merchant = await createMerchantWithKey(server.core.runtime, { name: "Metrics", scopes: ["payments:write"] });
    const before = await scrape(server.url);
    const create = (key: string, amount: number) =>
      fetch(`${server.url}/v1/payment-intents`, {
        method: "POST",
        headers: { Authorization: `Bearer ${merchant.api_key}`, "Idempotency-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({ amount_minor: amount, currency: "EUR" }),
      });
    t.equal((await create("metrics-1", 1000)).status, 201);
    const replayed = await create("metrics-1", 1000);
    t.equal(replayed.headers.get("idempotent-replayed"), "true");
    t.equal((await create("metrics-1", 2000)).status, 422, "same key, other body");
    const afterPayments = await scrape(server.url);
    const route = { route: "/v1/payment-intents", method: "POST" };
    t.equal(delta(before, afterPayments, "domainkit_http_request_duration_seconds_count", { ...route, status: "201" }), 2, "two 201 answers (one replayed)");
    t.equal(delta(before, afterPayments, "domainkit_http_request_duration_seconds_count", { ...route, status: "422" }), 1);
    t.equal(delta(before, afterPayments, "domainkit_idempotency_replays_total", { route: "/v1/payment-intents" }), 1, "one replay");
    t.equal(
      delta(before, afterPayments, "domainkit_idempotency_conflicts_total", { route: "/v1/payment-intents", code: "idempotency_key_reused" }),
      1,
      "one conflict",
    );
    t.ok(delta(before, afterPayments, "domainkit_db_transaction_duration_seconds_count", { outcome: "commit" }) >= 1, "the create committed a transaction");
    if (config.databaseUrl !== undefined) t.ok(valueOf(afterPayments, "domainkit_db_pool_connections", { state: "total" }) >= 1, "the pool is in use");

    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    const workspace = await fetch(`${server.url}/v1/workspaces`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Outbox" }),
    });
    t.equal(workspace.status, 201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const afterWorkspace = await scrape(server.url);
    t.ok(delta(afterPayments, afterWorkspace, "domainkit_outbox_backlog") >= 1, "the new workspace's event waits in the outbox (no worker)");
    t.ok(valueOf(afterWorkspace, "domainkit_outbox_oldest_pending_age_seconds") > 0, "relay lag: the oldest undelivered event has an age");

    // Unknown paths share one label value, so a scan cannot grow the series without bound.
    await fetch(`${server.url}/no/such/${uuidv7()}`);
    const afterUnknown = await scrape(server.url);
    t.equal(delta(afterPayments, afterUnknown, "domainkit_http_request_duration_seconds_count", { route: "unmatched", method: "GET", status: "404" }), 1);

    let refused = 0;
    for (let i = 0; i < 15 && refused === 0; i++) if ((await create(`metrics-rl-${i}`, 100)).status === 429) refused++;
    t.equal(refused, 1, "the rate limit refused a request");
    const afterLimit = await scrape(server.url);
    t.equal(delta(afterUnknown, afterLimit, "domainkit_rate_limit_refusals_total", { route: "/v1/payment-intents", code: "rate_limited" }), 1);
  }),
);

t.test("job, webhook and payments gauges read their tables at scrape time", (t) =>
  forEachDialectConfig(t, "state metrics", async (t, config) => {
    const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
    const merchant = await createMerchantWithKey(server.core.runtime, { name: "State", scopes: ["payments:write"] });
    const intent = (await (
      await fetch(`${server.url}/v1/payment-intents`, {
        method: "POST",
        headers: { Authorization: `Bearer ${merchant.api_key}`, "Idempotency-Key": "state-1", "Content-Type": "application/json" },
        body: JSON.stringify({ amount_minor: 500, currency: "EUR" }),
      })
    ).json()) as { id: string };
    const before = await scrape(server.url);
    const { db } = server.core.database;
    const f = featuresFor(server.core.database);
    const now = f.timeToDb(new Date());
    const past = f.timeToDb(new Date(Date.now() - 60_000));
    const job = (status: string, runAt: unknown) => ({
      id: uuidv7(),
      kind: "metrics.test",
      payload: f.jsonToDb({}),
      status,
      attempts: 0,
      max_attempts: 3,
      run_at: runAt,
      created_at: now,
      updated_at: now,
    });
    await db.insertInto("jobs").values([job("pending", past), job("dead", past), job("dead", past)]).execute();
    const endpointId = uuidv7();
    await db
      .insertInto("payment_webhook_endpoints")
      .values({ id: endpointId, merchant_id: merchant.merchant_id, url: "https://merchant.example/hook", events: f.jsonToDb(["*"]), signing_secret: "s".repeat(40), created_at: now })
      .execute();
    await db
      .insertInto("payment_webhook_deliveries")
      .values(
        (["pending", "succeeded", "dead"] as const).map((status) => ({
          id: uuidv7(),
          endpoint_id: endpointId,
          merchant_id: merchant.merchant_id,
          event_id: uuidv7(),
          event_type: "payment_intent.succeeded",
          body: "{}",
          status,
          attempts: 1,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await db
      .insertInto("payment_attempts")
      .values({
        id: uuidv7(),
        intent_id: intent.id,
        merchant_id: merchant.merchant_id,
        number: 99,
        reference: `metrics-${uuidv7()}`,
        payment_method: "pm_card_visa",
        status: "unknown",
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto("payment_reconciliation_exceptions")
      .values({
        id: uuidv7(),
        merchant_id: merchant.merchant_id,
        provider_object: "pi_metrics",
        settlement_window: "2026-11-24",
        kind: "missing",
        subject_type: "unknown",
        status: "open",
        opened_at: now,
      })
      .execute();
    const after = await scrape(server.url);
    t.equal(delta(before, after, "domainkit_jobs", { state: "due" }), 1, "a job whose time came is due");
    t.equal(delta(before, after, "domainkit_jobs", { state: "dead" }), 2);
    t.equal(delta(before, after, "domainkit_webhook_deliveries", { outcome: "pending" }), 1);
    t.equal(delta(before, after, "domainkit_webhook_deliveries", { outcome: "dead" }), 1);
    t.notOk(after.has(`domainkit_webhook_deliveries{outcome="succeeded"}`), "succeeded deliveries are not counted (the table keeps every one)");
    t.equal(delta(before, after, "domainkit_payments_provider_timeouts"), 1, "an attempt with an unknown provider outcome");
    t.equal(delta(before, after, "domainkit_payments_reconciliation_exceptions_open"), 1);
  }),
);

t.test("websocket connections and subscriptions are counted while they are open", async (t) => {
  const config = await testConfig("sqlite", t);
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
  const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { id: string };
  };
  const workspace = await call("/v1/workspaces", { name: "Metrics" });
  const project = await call(`/v1/workspaces/${workspace.id}/projects`, { name: "Gauges" });
  const before = await scrape(server.url);
  const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
  const messages: Array<{ type: string }> = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data)) as { type: string }));
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  socket.send(JSON.stringify({ type: "subscribe", channel: `project:${project.id}` }));
  for (let i = 0; i < 100 && !messages.some((m) => m.type === "subscribed"); i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(messages.some((m) => m.type === "subscribed"), "subscribed");
  const open = await scrape(server.url);
  t.equal(delta(before, open, "domainkit_websocket_connections"), 1);
  t.equal(delta(before, open, "domainkit_websocket_subscriptions"), 1);
  socket.close();
  await new Promise((resolve) => socket.once("close", resolve));
  for (let i = 0; i < 50 && valueOf(await scrape(server.url), "domainkit_websocket_connections") !== 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(valueOf(await scrape(server.url), "domainkit_websocket_connections"), 0, "a closed socket is no longer counted");
});

t.test("with METRICS_TOKEN set, /metrics answers 401 without the bearer token and 200 with it", async (t) => {
  const token = "metrics-token-0123456789";
  const config = await testConfig("sqlite", t, { METRICS_TOKEN: token });
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
  const anonymous = await fetch(`${server.url}/metrics`);
  t.equal(anonymous.status, 401);
  t.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="metrics"');
  t.equal((await fetch(`${server.url}/metrics`, { headers: { Authorization: "Bearer wrong-token-0123456789" } })).status, 401);
  const scraped = await scrape(server.url, token);
  t.ok(scraped.has("domainkit_outbox_backlog"), "the scrape carries the domainkit metrics");
});

t.test("METRICS_ENABLED=false serves no /metrics", async (t) => {
  const config = await testConfig("sqlite", t, { METRICS_ENABLED: "false" });
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
  t.equal((await fetch(`${server.url}/metrics`)).status, 404);
});
