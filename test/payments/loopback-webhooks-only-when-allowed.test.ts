/**
 * Plain-http loopback webhook endpoints exist for development only (security audit S1): the host
 * allows them (the reference server outside production), never in production. With the setting
 * off, registration answers 422 on `url` for them and for every non-public https form, and a
 * loopback endpoint stored earlier is never called: the delivery's attempt fails with a generic
 * error that says nothing about the port.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { deliverMerchantWebhook, merchantWebhookDeliveryJobKind } from "../../core/payments/MerchantWebhookDelivery.js";
import { MerchantId, WebhookEndpointId } from "../../core/payments/model/Ids.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { dialects, forEachDialect } from "../support/databases.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";
import { runningJob } from "../worker/fixtures.js";
import { call, newMerchant, paymentsRuntime, pendingWebhookDelivery } from "./support.js";
import { startHookReceiver } from "./hookReceiver.js";

/** What NODE_ENV=production needs besides the test secrets. */
const productionEnv = {
  NODE_ENV: "production",
  BLOB_SIGNING_SECRET: "blob-secret-of-the-test-0123456789abcdef0123",
  METRICS_TOKEN: "metrics-token-of-the-test-0123456789",
  DELIVERY_LOCATION_KEY: "ab".repeat(32),
};

t.test("in production, registering a plain-http loopback URL or an https URL naming a non-public address answers 422 on url", (t) =>
  Promise.all(
    dialects.map((dialect) =>
      t.test(`production registration [${dialect}]`, async (t) => {
        const config = await testConfig(dialect, t, productionEnv);
        t.equal(config.production, true);
        // The module is told to allow loopback http: in production the reference server turns it off.
        const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider(), allowLoopbackHttpWebhooks: true })] });
        const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Hook shop", scopes: ["webhooks:write"] });
        const receiver = await startHookReceiver(t, () => 200);
        for (const url of [
          `${receiver}/hooks`,
          "http://localhost:1/",
          "http://[::1]:8080/",
          "https://[::127.0.0.1]/",
          "https://[::ffff:0:127.0.0.1]/",
          "https://[2002:7f00:1::]/",
          "https://[64:ff9b::127.0.0.1]/",
          "https://[64:ff9b:1::7f00:1]/",
          "https://[fec0::1]/",
          "https://192.0.2.1/",
          "https://198.51.100.7/",
          "https://203.0.113.9/",
        ]) {
          t.match(
            await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url } }),
            { status: 422, body: { code: "validation_failed", errors: [{ path: "url" }] } },
            `${url} refused`,
          );
        }
        t.match(await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: "https://hooks.merchant.example/payments" } }), { status: 201 }, "a public https host is registered");
      }),
    ),
  ),
);

t.test("with loopback http off, a stored plain-http loopback endpoint is never called: the attempt fails with a generic error", (t) =>
  forEachDialect(t, "stored loopback endpoint", async (t, db) => {
    const posts: string[] = [];
    const receiver = await startHookReceiver(t, ({ path }) => {
      posts.push(path);
      return 200;
    });
    // The module's default: loopback http off.
    const { run, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run, ["webhooks:write"]);
    const endpoint = {
      id: WebhookEndpointId.make(randomUUID()),
      merchantId: MerchantId.make(merchant.merchantId),
      url: `${receiver}/hooks`,
      events: null,
      createdAt: new Date(),
      deletedAt: null,
    };
    // Stored before the setting existed (registration refuses it now).
    await run(Effect.flatMap(WebhookEndpoints, (store) => store.create(endpoint)));
    const delivery = pendingWebhookDelivery(endpoint);
    await run(Effect.flatMap(WebhookEndpoints, (store) => store.insertDelivery(delivery)));
    const job = runningJob({ kind: merchantWebhookDeliveryJobKind, key: delivery.id, payload: { delivery_id: delivery.id } });
    t.match(await attempt(deliverMerchantWebhook(delivery.id, job)), { ok: false, error: { code: "merchant_webhook_attempt_failed" } }, "the attempt fails");
    t.same(posts, [], "the loopback receiver was never called");
    const listed = await run(Effect.flatMap(WebhookEndpoints, (store) => store.listDeliveries({ endpointId: endpoint.id, limit: 10 })));
    t.match(listed, [{ delivery: { status: "pending", attempts: 1, lastError: "the endpoint URL is not allowed" }, attempts: [{ number: 1, statusCode: null, error: "the endpoint URL is not allowed" }] }]);
  }),
);
