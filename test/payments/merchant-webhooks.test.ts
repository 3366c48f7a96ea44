/**
 * Outgoing merchant webhooks (spec rule 11) against a real receiver on 127.0.0.1 that verifies
 * the signature: PaymentSucceeded and RefundSucceeded are delivered once per subscribed endpoint
 * with `Webhook-Signature` (HMAC-SHA256 over "<t>.<raw body>") and `Webhook-Id` = the immutable
 * event id; a redelivered outbox event creates no second delivery (UNIQUE per endpoint and
 * event); a failing receiver is retried by the job runner with backoff and the delivery is
 * dead-lettered at the bound; deliveries are listed with their attempts, to their merchant only.
 */
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { verifyMerchantWebhookSignature } from "../../adapters/payments/webhooks/FetchMerchantWebhookSender.js";
import { makeMerchantWebhookFanout } from "../../core/payments/MerchantWebhookFanout.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import type { HasTeardown } from "../support/databases.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";
import { startHookReceiver } from "./hookReceiver.js";

const scopes = ["payments:write", "refunds:write", "ledger:read", "webhooks:write"];

interface Received {
  readonly path: string;
  readonly webhookId: string | undefined;
  readonly signature: string | undefined;
  readonly raw: string;
  readonly valid: boolean;
}

/** A merchant's receiver: verifies signatures with the secret registered per path; fails on demand. */
const startReceiver = async (t: HasTeardown) => {
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  const state = { fail: false };
  const base = await startHookReceiver(t, ({ path, headers, raw }) => {
    const signature = headers["webhook-signature"] as string | undefined;
    const valid = verifyMerchantWebhookSignature({ secret: secrets.get(path) ?? "", header: signature, rawBody: raw, nowSeconds: Math.floor(Date.now() / 1000) });
    received.push({ path, webhookId: headers["webhook-id"] as string | undefined, signature, raw, valid });
    return state.fail ? 500 : valid ? 200 : 400;
  });
  return { base, secrets, received, state };
};

/** Polls `check` until it holds (bounded), so tests wait for the worker without timing assertions. */
const eventually = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
  for (let i = 0; i < 300; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test("payment and refund events are delivered signed, once per endpoint, with the event id for dedupe", (t) =>
  forEachDialectConfig(t, "signed deliveries", async (t, config) => {
    const receiver = await startReceiver(t);
    const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const { api_key: key, merchant_id } = await createMerchantWithKey(server.core.runtime, { name: "Hook shop", scopes });
    const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes });

    const all = await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: `${receiver.base}/all` } });
    t.equal(all.status, 201);
    t.match(all.body, { object: "webhook_endpoint", url: `${receiver.base}/all`, events: null });
    t.match(String(all.body.secret), /^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.secrets.set("/all", String(all.body.secret));
    const refunds = await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: `${receiver.base}/refunds`, events: ["RefundSucceeded"] } });
    receiver.secrets.set("/refunds", String(refunds.body.secret));
    const listed = await call(`${server.url}/v1/webhook-endpoints`, { key });
    t.equal((listed.body.data as unknown[]).length, 2);
    t.notOk(listed.text.includes("whsec_"), "the signing secret is shown only at creation");
    t.match(await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: "http://example.com/hook" } }), { status: 422 }, "plain http only on loopback");
    t.match(await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: `${receiver.base}/x`, events: ["Nope"] } }), { status: 422 });
    const noScope = await createMerchantWithKey(server.core.runtime, { name: "No hooks", scopes: ["payments:write"] });
    t.match(await call(`${server.url}/v1/webhook-endpoints`, { key: noScope.api_key, body: { url: `${receiver.base}/x` } }), { status: 403 });

    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 3000, currency: "EUR" } });
    const id = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 500 } });
    await eventually(() => receiver.received.length >= 3, "three deliveries");

    t.ok(receiver.received.every((r) => r.valid), "every delivery carries a valid signature over the raw body");
    const bodies = receiver.received.map((r) => ({ path: r.path, id: r.webhookId, body: JSON.parse(r.raw) as Record<string, unknown> }));
    for (const b of bodies) t.equal(b.id, b.body.id, "Webhook-Id is the event id");
    const onAll = bodies.filter((b) => b.path === "/all");
    t.same(onAll.map((b) => b.body.type).sort(), ["PaymentSucceeded", "RefundSucceeded"]);
    const paid = onAll.find((b) => b.body.type === "PaymentSucceeded");
    t.match(paid?.body, { merchant_id, data: { payment_intent_id: id, amount_captured_minor: 3000, currency: "EUR" } });
    const onRefunds = bodies.filter((b) => b.path === "/refunds");
    t.equal(onRefunds.length, 1, "an endpoint gets only the events it subscribed to");
    t.equal(onRefunds[0]?.id, onAll.find((b) => b.body.type === "RefundSucceeded")?.id, "the same event keeps its id on every endpoint");

    // The receiver answers before the job records the attempt: wait for both deliveries to settle.
    const settled = async () => {
      const listed = await call(`${server.url}/v1/webhook-endpoints/${String(all.body.id)}/deliveries`, { key });
      return (listed.body.data as Array<{ status?: string }>).filter((d) => d.status === "succeeded").length === 2;
    };
    await eventually(settled, "both deliveries recorded as succeeded");
    const deliveries = await call(`${server.url}/v1/webhook-endpoints/${String(all.body.id)}/deliveries`, { key });
    t.equal(deliveries.status, 200);
    const rows = deliveries.body.data as Array<Record<string, unknown>>;
    t.equal(rows.length, 2);
    for (const row of rows) t.match(row, { object: "webhook_delivery", status: "succeeded", attempts: [{ number: 1, status_code: 200, error: null }] });
    const page = await call(`${server.url}/v1/webhook-endpoints/${String(all.body.id)}/deliveries?limit=1`, { key });
    const next = await call(`${server.url}/v1/webhook-endpoints/${String(all.body.id)}/deliveries?limit=1&cursor=${String(page.body.next_cursor)}`, { key });
    t.not((page.body.data as Array<{ id: string }>)[0]?.id, (next.body.data as Array<{ id: string }>)[0]?.id, "keyset pages");
    t.match(await call(`${server.url}/v1/webhook-endpoints/${String(all.body.id)}/deliveries`, { key: other.api_key }), { status: 404 }, "another merchant's endpoint is 404");
    t.same((await call(`${server.url}/v1/webhook-endpoints`, { key: other.api_key })).body, { data: [], next_cursor: null });

    // The relay delivers at least once: handing the same event to the fan-out again adds nothing.
    const event = { id: String(paid?.id), type: "PaymentSucceeded", schema_version: 1, tenant_id: merchant_id, aggregate_id: id, aggregate_version: 3, occurred_at: String(paid?.body.created_at), actor_id: null, data: paid?.body.data };
    await server.core.runtime.runPromise(makeMerchantWebhookFanout().handle(event));
    const forEvent = await server.core.database.db.selectFrom("payment_webhook_deliveries").selectAll().where("event_id", "=", event.id).execute();
    t.equal(forEvent.length, 1, "one delivery per (endpoint, event)");
    // The fan-out decodes with the module's event union: an envelope whose data does not fit its type is not sent.
    const misfit = { ...event, id: "00000000-0000-7000-8000-00000000f00d", data: { payment_intent_id: id } };
    await server.core.runtime.runPromise(makeMerchantWebhookFanout().handle(misfit));
    const forMisfit = await server.core.database.db.selectFrom("payment_webhook_deliveries").selectAll().where("event_id", "=", misfit.id).execute();
    t.equal(forMisfit.length, 0, "an event that does not decode makes no delivery");
    const jobs = await server.core.database.db.selectFrom("jobs").select("id").where("key", "=", String(forEvent[0]?.id)).execute();
    t.equal(jobs.length, 1, "and one job");

    const deleted = await call(`${server.url}/v1/webhook-endpoints/${String(refunds.body.id)}`, { method: "DELETE", key, idempotencyKey: freshKey() });
    t.equal(deleted.status, 204);
    t.match(await call(`${server.url}/v1/webhook-endpoints/${String(refunds.body.id)}`, { method: "DELETE", key: other.api_key, idempotencyKey: freshKey() }), { status: 404 });
    await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 100 } });
    await eventually(() => receiver.received.filter((r) => r.path === "/all").length >= 3, "the third delivery");
    const toDeleted = await server.core.database.db.selectFrom("payment_webhook_deliveries").selectAll().where("endpoint_id", "=", String(refunds.body.id)).execute();
    t.equal(toDeleted.length, 1, "a deleted endpoint gets no new deliveries");
    t.notOk(logText().includes(String(all.body.secret)), "the signing secret never reaches the logs");
  }),
);

t.test("a failing receiver is retried with backoff and the delivery is dead-lettered at the bound", (t) =>
  forEachDialectConfig(t, "retries and dead letter", async (t, config) => {
    const receiver = await startReceiver(t);
    receiver.state.fail = true;
    const { server } = await startReferenceServer(t, config, {
      modules: [makePaymentsModule({ provider: makeSandboxProvider(), merchantWebhookMaxAttempts: 3 })],
    });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Flaky shop", scopes });
    const endpoint = await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: `${receiver.base}/flaky`, events: ["PaymentSucceeded"] } });
    receiver.secrets.set("/flaky", String(endpoint.body.secret));
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 700, currency: "USD" } });
    await call(`${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const deliveriesUrl = `${server.url}/v1/webhook-endpoints/${String(endpoint.body.id)}/deliveries`;
    let delivery: Record<string, unknown> = {};
    await eventually(async () => {
      delivery = ((await call(deliveriesUrl, { key })).body.data as Array<Record<string, unknown>>)[0] ?? {};
      return delivery.status === "dead";
    }, "the delivery to be dead");
    const attempts = delivery.attempts as Array<Record<string, unknown>>;
    t.same(attempts.map((a) => [a.number, a.status_code]), [[1, 500], [2, 500], [3, 500]], "three attempts, then dead");
    t.equal(delivery.last_error, "receiver answered 500");
    t.equal(receiver.received.length, 3, "the receiver saw exactly the bound");
    t.ok(receiver.received.every((r) => r.valid && r.webhookId === receiver.received[0]?.webhookId && r.raw === receiver.received[0]?.raw), "every retry sends the same signed bytes and event id");
    const times = attempts.map((a) => Date.parse(String(a.attempted_at)));
    t.ok(times.every((time, i) => i === 0 || time > (times[i - 1] as number)), "attempts are spaced by the runner's backoff, never at once");
    // The delivery row is dead in the handler's transaction; the runner records the job's last failure just after.
    const jobOf = () => server.core.database.db.selectFrom("jobs").selectAll().where("key", "=", String(delivery.id)).executeTakeFirst();
    await eventually(async () => (await jobOf())?.status !== "running", "the runner to record the job's last attempt");
    t.match(await jobOf(), { status: "dead", attempts: 3 }, "the job is dead-lettered too");
  }),
);
