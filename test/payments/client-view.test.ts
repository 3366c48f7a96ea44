/**
 * The restricted client-secret view: creating an intent answers its client secret once (stored
 * only as a hash); GET /v1/payment-intents/:id/client-view with X-Client-Secret answers a
 * read-only view without merchant, provider, token or ledger data; a missing, wrong or other
 * intent's secret answers 404 like an unknown intent; the secret never reaches the logs, even
 * when a client puts it in the query string.
 */
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";

const view = async (url: string, secret?: string) => {
  const response = await fetch(url, { headers: secret === undefined ? {} : { "X-Client-Secret": secret } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text, headers: response.headers };
};

t.test("a client secret gives a read-only view of its intent and nothing else", (t) =>
  forEachDialectConfig(t, "client view", async (t, config) => {
    const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Client shop", scopes: ["payments:write"] });
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 1999, currency: "EUR" } });
    t.equal(created.status, 201);
    const id = String(created.body.id);
    const secret = String(created.body.client_secret);
    t.match(secret, new RegExp(`^${id}_secret_[A-Za-z0-9_-]{32}$`));
    const stored = await server.core.database.db.selectFrom("payment_client_secrets").selectAll().execute();
    t.equal(stored.length, 1);
    t.notOk(JSON.stringify(stored).includes(secret.slice(-32)), "only the hash is stored");
    const read = await call(`${server.url}/v1/payment-intents/${id}`, { key });
    t.notOk("client_secret" in read.body, "the merchant's later reads do not repeat the secret");

    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const url = `${server.url}/v1/payment-intents/${id}/client-view`;
    const seen = await view(url, secret);
    t.equal(seen.status, 200);
    t.same(seen.body, {
      id,
      object: "payment_intent_client_view",
      amount_minor: 1999,
      currency: "EUR",
      capture_method: "automatic",
      status: "succeeded",
      last_decline_code: null,
      created_at: created.body.created_at,
    }, "only the non-sensitive fields");
    t.equal(seen.headers.get("cache-control"), "no-store");
    for (const hidden of ["merchant_id", "payment_method", "provider_payment_id", "amount_captured_minor", "pm_card", "pi_"]) {
      t.notOk(seen.text.includes(hidden), `no ${hidden} in the view`);
    }

    const other = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 5, currency: "EUR" } });
    const unknown = await view(`${server.url}/v1/payment-intents/01900000-0000-7000-8000-000000000000/client-view`, secret);
    t.equal(unknown.status, 404);
    for (const [name, attempt] of [
      ["no secret", await view(url)],
      ["a wrong secret", await view(url, `${id}_secret_${"A".repeat(32)}`)],
      ["another intent's secret", await view(url, String(other.body.client_secret))],
      ["the right secret on another intent", await view(`${server.url}/v1/payment-intents/${String(other.body.id)}/client-view`, secret)],
    ] as const) {
      t.equal(attempt.status, 404, `${name} answers 404`);
      t.same(attempt.body, unknown.body, `${name} is indistinguishable from an unknown intent`);
    }
    const inQuery = await view(`${url}?client_secret=${encodeURIComponent(secret)}`);
    t.equal(inQuery.status, 404, "the secret is only read from the header");

    const logs = logText();
    t.ok(logs.includes("client-view"), "the requests were logged");
    t.notOk(logs.includes(secret.slice(-32)), "the client secret never appears in the logs");
    t.notOk(logs.includes(String(other.body.client_secret).slice(-32)));
    t.ok(logs.includes('"client_secret":"[REDACTED]"'), "a client_secret query parameter is redacted by pino");
  }),
);
