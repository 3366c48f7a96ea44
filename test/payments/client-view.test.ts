/**
 * The customer secret boundary (spec: confirm is for the "owning merchant or customer secret
 * boundary"; "a restricted client secret gives a limited read view of an intent"): creating an
 * intent answers its client secret once (stored only as a hash). Presented as the bearer
 * credential, the secret reads that intent's client view (no merchant, provider, token or
 * ledger data) and confirms it, idempotently, audited as the customer; it cannot capture,
 * cancel, refund or read the ledger (403); another intent answers 404 exactly like an unknown
 * one; a wrong secret is 401; the secret never reaches the logs — SQLite and Postgres.
 */
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";

t.test("a client secret reads and confirms its own intent and nothing else", (t) =>
  forEachDialectConfig(t, "client secret boundary", async (t, config) => {
    const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, {
      name: "Client shop",
      scopes: ["payments:write", "refunds:write", "ledger:read"],
    });
    const create = (amount: number) =>
      call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: amount, currency: "EUR" } });
    const created = await create(1999);
    t.equal(created.status, 201);
    const id = String(created.body.id);
    const secret = String(created.body.client_secret);
    t.match(secret, new RegExp(`^${id}_secret_[A-Za-z0-9_-]{32}$`));
    const stored = await server.core.database.db.selectFrom("payment_client_secrets").selectAll().execute();
    t.equal(stored.length, 1);
    t.notOk(JSON.stringify(stored).includes(secret.slice(-32)), "only the hash is stored");
    t.notOk("client_secret" in (await call(`${server.url}/v1/payment-intents/${id}`, { key })).body, "later reads do not repeat the secret");

    const seen = await call(`${server.url}/v1/payment-intents/${id}`, { key: secret });
    t.equal(seen.status, 200);
    const clientView = (status: string) => ({
      id,
      object: "payment_intent_client_view",
      amount_minor: 1999,
      currency: "EUR",
      capture_method: "automatic",
      status,
      last_decline_code: null,
      created_at: created.body.created_at,
    });
    t.same(seen.body, clientView("requires_payment_method"), "only the non-sensitive fields");
    t.equal(seen.headers.get("cache-control"), "no-store");

    // The customer confirms with a token from the provider's hosted fields.
    const confirmKey = freshKey();
    const confirm = () => call(`${server.url}/v1/payment-intents/${id}/confirm`, { key: secret, idempotencyKey: confirmKey, body: { payment_method: sandboxTokens.visa } });
    const confirmed = await confirm();
    t.equal(confirmed.status, 200);
    t.same(confirmed.body, clientView("succeeded"), "the customer sees the client view of the confirmed intent");
    for (const hidden of ["merchant_id", "payment_method", "provider_payment_id", "amount_captured_minor", "pm_card", "pi_"]) {
      t.notOk(confirmed.text.includes(hidden), `no ${hidden} in the customer's answer`);
    }
    const replay = await confirm();
    t.same(replay.body, confirmed.body, "the same Idempotency-Key replays the answer");
    const merchantView = await call(`${server.url}/v1/payment-intents/${id}`, { key });
    t.equal(merchantView.body.status, "succeeded");
    t.equal(merchantView.body.attempt_count, 1, "one provider attempt for the customer's confirm and its replay");
    const audit = await server.core.database.db
      .selectFrom("payment_audit_log")
      .select(["actor", "action", "reason"])
      .where("subject_id", "=", id)
      .where("action", "=", "payment_intent.confirm_started")
      .execute();
    t.same(audit.map((a) => a.actor), [`customer:payment_intent:${id}`], "the confirm is audited as the customer, not the merchant");

    // A decline shows the customer its client view, confirmable again.
    const second = await create(500);
    const secondSecret = String(second.body.client_secret);
    const declined = await call(`${server.url}/v1/payment-intents/${String(second.body.id)}/confirm`, {
      key: secondSecret,
      idempotencyKey: freshKey(),
      body: { payment_method: sandboxTokens.declined },
    });
    t.equal(declined.status, 402);
    t.equal((declined.body.payment_intent as Record<string, unknown>).object, "payment_intent_client_view");
    t.notOk(declined.text.includes("merchant_id"));

    // Merchant-only commands and reads are forbidden to the customer.
    const forbidden = [
      await call(`${server.url}/v1/payment-intents/${id}/cancel`, { key: secret, idempotencyKey: freshKey(), body: {} }),
      await call(`${server.url}/v1/payment-intents/${id}/capture`, { key: secret, idempotencyKey: freshKey(), body: {} }),
      await call(`${server.url}/v1/refunds`, { key: secret, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 1 } }),
      await call(`${server.url}/v1/balance-transactions`, { key: secret }),
      await call(`${server.url}/v1/payment-intents`, { key: secret, idempotencyKey: freshKey(), body: { amount_minor: 1, currency: "EUR" } }),
    ];
    t.same(forbidden.map((r) => r.status), [403, 403, 403, 403, 403], "capture, cancel, refund, ledger and create need a merchant key");

    // Another intent, or an unknown one, is 404 and indistinguishable.
    const unknown = await call(`${server.url}/v1/payment-intents/01900000-0000-7000-8000-000000000000`, { key: secret });
    t.equal(unknown.status, 404);
    const otherRead = await call(`${server.url}/v1/payment-intents/${String(second.body.id)}`, { key: secret });
    t.equal(otherRead.status, 404);
    const withoutRequestId = (body: unknown) => {
      const { request_id: _requestId, ...problem } = body as Record<string, unknown>;
      return problem;
    };
    t.same(withoutRequestId(otherRead.body), withoutRequestId(unknown.body), "another intent is indistinguishable from an unknown one");
    const otherConfirm = await call(`${server.url}/v1/payment-intents/${String(second.body.id)}/confirm`, {
      key: secret,
      idempotencyKey: freshKey(),
      body: { payment_method: sandboxTokens.visa },
    });
    t.equal(otherConfirm.status, 404, "a client secret never confirms another intent");

    const wrong = await call(`${server.url}/v1/payment-intents/${id}`, { key: `${id}_secret_${"A".repeat(32)}` });
    t.equal(wrong.status, 401, "a wrong secret is not a credential");
    t.equal(wrong.body.code, "invalid_token");

    const logs = logText();
    t.ok(logs.includes(`/v1/payment-intents/${id}`), "the requests were logged");
    t.notOk(logs.includes(secret.slice(-32)), "the client secret never appears in the logs");
    t.notOk(logs.includes(secondSecret.slice(-32)));
  }),
);
