/**
 * Spec, Payment service (Authentication 2): "Platform operator: provider health and replay controls
 * under dual control." Platform operators read the provider's health as our records show it — the
 * outcomes still open with the provider: attempts whose outcome is unknown, attempts whose answer
 * was never recorded, refunds awaiting the provider, exceptions opened because the provider gave no
 * answer within the ambiguity window, and when the last verified provider webhook arrived. Anyone
 * else (a merchant key, a user who is not an operator) is 403 — SQLite and Postgres.
 */
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { deliverSandboxWebhook } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, hostSecret, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";

const operator = "01900000-0000-7000-8000-00000000a11c";
const someoneElse = "01900000-0000-7000-8000-0000000ba11e";
const secret = "whsec_provider_health_tests_0001";

t.test("platform operators read the provider's health: open ambiguous outcomes and the last provider webhook; anyone else is 403", (t) =>
  forEachDialectConfig(t, "provider health", async (t, config) => {
    const provider = makeSandboxProvider();
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider, platformOperators: [operator], webhookSecret: [secret] })] });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Health shop", scopes: ["payments:write", "refunds:write", "ledger:read"] });
    const health = `${server.url}/v1/operator/provider-health`;
    const operatorToken = await mintToken({ secret: hostSecret, userId: operator, ttlSeconds: 600 });

    const empty = await call(health, { key: operatorToken });
    t.match(empty, {
      status: 200,
      body: { object: "provider_health", unknown_attempts: 0, unrecorded_attempts: 0, pending_refunds: 0, open_unresolved_exceptions: 0, last_provider_event_at: null },
    });
    t.equal(empty.headers.get("cache-control"), "no-store", "a live view is never cached");

    const pay = async (token: string) => {
      const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 1000, currency: "EUR" } });
      const id = String(created.body.id);
      await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: token } });
      return id;
    };
    const lost = await pay(sandboxTokens.timeoutAfter);
    const paid = await pay(sandboxTokens.visa);
    provider.injectFault("refund", "timeout_after");
    t.equal((await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: paid, amount_minor: 100 } })).status, 202);

    const open = await call(health, { key: operatorToken });
    t.match(open, { status: 200, body: { unknown_attempts: 1, unrecorded_attempts: 0, pending_refunds: 1, open_unresolved_exceptions: 0, last_provider_event_at: null } });

    // The provider's webhook about the lost answer arrives: that outcome is no longer open.
    const event = provider.events().filter((e) => e.data.reference === `pi_${lost}_attempt_1`).at(-1);
    t.ok(event !== undefined, "the provider recorded the payment's event");
    t.match((await deliverSandboxWebhook(`${server.url}/v1/webhooks/provider`, event!, { secret })).body, { status: "processed" });
    const after = await call(health, { key: operatorToken });
    t.match(after.body, { unknown_attempts: 0, pending_refunds: 1 });
    t.ok(typeof after.body.last_provider_event_at === "string" && !Number.isNaN(Date.parse(String(after.body.last_provider_event_at))), "the last webhook's time");

    t.equal((await call(health, { key })).status, 403, "a merchant key is not an operator");
    t.equal((await call(health, { key: await mintToken({ secret: hostSecret, userId: someoneElse, ttlSeconds: 600 }) })).status, 403, "nor is any other user");
  }),
);
