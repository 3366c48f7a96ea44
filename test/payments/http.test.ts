/**
 * The payment endpoints over HTTP on the reference server (SQLite and Postgres): the walk-through
 * from intent to refund and ledger view, idempotent confirm (ten parallel identical confirms make
 * exactly one provider call), 402 on decline and 202 on an ambiguous outcome, object-level
 * merchant authorization (404 for another merchant's objects, 403 for a missing scope), 422 on
 * a currency mismatch, and no API key or payment token in any log line or error body.
 */
import t from "tap";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { forEachDialect } from "../support/databases.js";
import { call, freshKey, startPaymentsServer } from "./support.js";

t.test("a payment from intent to refund over HTTP, with the ledger as keyset pages", (t) =>
  forEachDialect(t, "walk-through", async (t, db) => {
    const { server, merchant } = await startPaymentsServer(t, db.dialect);
    const { api_key: key, merchant_id } = await merchant();
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 2500, currency: "EUR" } });
    t.equal(created.status, 201);
    t.match(created.body, { object: "payment_intent", merchant_id, status: "requires_payment_method", amount_minor: 2500 });
    t.equal(created.headers.get("etag"), '"1"');
    const id = String(created.body.id);
    const confirmed = await call(`${server.url}/v1/payment-intents/${id}/confirm`, {
      key,
      idempotencyKey: freshKey(),
      body: { payment_method: sandboxTokens.visa },
    });
    t.equal(confirmed.status, 200);
    t.match(confirmed.body, { status: "succeeded", amount_captured_minor: 2500 });
    t.notOk("payment_method" in confirmed.body, "the token is never shown");
    const refundKey = freshKey();
    const refund = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: refundKey, body: { payment_intent_id: id, amount_minor: 1000 } });
    t.equal(refund.status, 201);
    t.match(refund.body, { object: "refund", status: "succeeded", amount_minor: 1000, currency: "EUR" });
    const replay = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: refundKey, body: { payment_intent_id: id, amount_minor: 1000 } });
    t.equal(replay.status, 201);
    t.equal(replay.headers.get("idempotent-replayed"), "true");
    t.same(replay.body, refund.body, "the same key replays the stored answer");
    const reused = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: refundKey, body: { payment_intent_id: id, amount_minor: 999 } });
    t.match(reused, { status: 422, body: { code: "idempotency_key_reused" } });
    const read = await call(`${server.url}/v1/payment-intents/${id}`, { key });
    t.match(read, { status: 200, body: { amount_refunded_minor: 1000 } });

    const first = await call(`${server.url}/v1/balance-transactions?limit=3`, { key });
    t.equal(first.status, 200);
    const data = first.body.data as Array<Record<string, unknown>>;
    t.equal(data.length, 3);
    t.type(first.body.next_cursor, "string");
    const second = await call(`${server.url}/v1/balance-transactions?limit=3&cursor=${String(first.body.next_cursor)}`, { key });
    const rest = second.body.data as Array<Record<string, unknown>>;
    t.equal(rest.length, 1, "four entries: capture and refund, two each");
    t.equal(second.body.next_cursor, null);
    const all = [...data, ...rest];
    t.equal(new Set(all.map((e) => e.id)).size, 4, "no entry twice across pages");
    t.equal(all.reduce((s, e) => s + Number(e.amount_minor), 0), 0, "the merchant's entries balance");
    const bad = await call(`${server.url}/v1/balance-transactions?cursor=not-a-cursor`, { key });
    t.match(bad, { status: 400, body: { code: "invalid_cursor" } });
    const openApi = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const path of ["/v1/payment-intents", "/v1/payment-intents/{id}/confirm", "/v1/payment-intents/{id}", "/v1/refunds", "/v1/balance-transactions"]) {
      t.ok(openApi.paths[path], `${path} is described in the OpenAPI document`);
    }
  }),
);

t.test("ten parallel identical confirms make exactly one provider call", (t) =>
  forEachDialectConfig(t, "parallel confirms", async (t, _config, dialect) => {
    const { server, merchant, provider } = await startPaymentsServer(t, dialect, { latencyMs: 100 });
    const { api_key: key } = await merchant();
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 4200, currency: "USD" } });
    const idempotencyKey = freshKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(`${server.url}/v1/payment-intents/${String(created.body.id)}/confirm`, {
          key,
          idempotencyKey,
          body: { payment_method: sandboxTokens.visa },
        }),
      ),
    );
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "one provider call");
    t.equal(provider.payments().length, 1, "one charge");
    for (const answer of answers) {
      t.ok(
        (answer.status === 200 && answer.body.status === "succeeded") || (answer.status === 409 && answer.body.code === "idempotency_request_in_progress"),
        `each answer is the result or in progress (${answer.status})`,
      );
    }
    t.ok(answers.some((a) => a.status === 200), "one of them ran");
    const after = await call(`${server.url}/v1/payment-intents/${String(created.body.id)}/confirm`, {
      key,
      idempotencyKey,
      body: { payment_method: sandboxTokens.visa },
    });
    t.match(after, { status: 200, body: { status: "succeeded" } });
    t.equal(after.headers.get("idempotent-replayed"), "true", "a later identical confirm replays");
    t.equal(provider.calls.length, 1);
  }),
);

t.test("ten parallel confirms with different keys still make one provider call: the intent is processing for all but one", (t) =>
  forEachDialectConfig(t, "parallel confirms, different keys", async (t, _config, dialect) => {
    const { server, merchant, provider } = await startPaymentsServer(t, dialect, { latencyMs: 50 });
    const { api_key: key } = await merchant();
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 4200, currency: "USD" } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(`${server.url}/v1/payment-intents/${String(created.body.id)}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } }),
      ),
    );
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "one provider call");
    t.equal(answers.filter((a) => a.status === 200).length, 1, "one confirm ran");
    t.equal(answers.filter((a) => a.status === 409 && a.body.code === "payment_intent_unexpected_state").length, 9, "the others conflict");
  }),
);

t.test("a declined confirm answers 402 with the intent, and a timeout after acting answers 202 processing", (t) =>
  forEachDialectConfig(t, "402 and 202", async (t, _config, dialect) => {
    const { server, merchant } = await startPaymentsServer(t, dialect);
    const { api_key: key } = await merchant();
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } });
    const url = `${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`;
    const declined = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.declined } });
    t.equal(declined.status, 402);
    t.equal(declined.headers.get("content-type"), "application/problem+json");
    t.match(declined.body, { code: "card_declined", decline_code: "card_declined", payment_intent: { status: "requires_payment_method" } });
    const ambiguous = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.timeoutAfter } });
    t.equal(ambiguous.status, 202);
    t.match(ambiguous.body, { status: "processing", amount_captured_minor: 0 });
    const settled = await call(url, { key, idempotencyKey: freshKey(), body: {} });
    t.match(settled, { status: 200, body: { status: "succeeded", amount_captured_minor: 100 } });
  }),
);

t.test("another merchant's objects answer 404 and a key without the needed scope answers 403", (t) =>
  forEachDialectConfig(t, "merchant authorization", async (t, _config, dialect) => {
    const { server, merchant } = await startPaymentsServer(t, dialect);
    const owner = await merchant();
    const other = await merchant();
    const readOnly = await merchant(["ledger:read"]);
    const intent = await call(`${server.url}/v1/payment-intents`, { key: owner.api_key, idempotencyKey: freshKey(), body: { amount_minor: 800, currency: "EUR" } });
    const id = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key: owner.api_key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const unknown = await call(`${server.url}/v1/payment-intents/01900000-0000-7000-8000-000000000000`, { key: other.api_key });
    const foreign = await call(`${server.url}/v1/payment-intents/${id}`, { key: other.api_key });
    t.equal(foreign.status, 404);
    // Each answer names its own request; apart from that the two bodies are the same.
    const { request_id: foreignRequest, ...foreignProblem } = foreign.body as Record<string, unknown>;
    const { request_id: unknownRequest, ...unknownProblem } = unknown.body as Record<string, unknown>;
    t.same(foreignProblem, unknownProblem, "another merchant's intent is indistinguishable from an unknown one");
    t.not(foreignRequest, unknownRequest, "every problem names its own request");
    t.match(await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key: other.api_key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } }), { status: 404 });
    t.match(await call(`${server.url}/v1/payment-intents/${id}/capture`, { key: other.api_key, idempotencyKey: freshKey(), body: {} }), { status: 404 });
    t.match(await call(`${server.url}/v1/payment-intents/${id}/cancel`, { key: other.api_key, idempotencyKey: freshKey(), body: {} }), { status: 404 });
    t.match(await call(`${server.url}/v1/refunds`, { key: other.api_key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 1 } }), { status: 404 });
    const otherLedger = await call(`${server.url}/v1/balance-transactions`, { key: other.api_key });
    t.same(otherLedger.body, { data: [], next_cursor: null }, "another merchant's ledger shows none of the owner's entries");

    t.match(await call(`${server.url}/v1/payment-intents`, { key: readOnly.api_key, idempotencyKey: freshKey(), body: { amount_minor: 1, currency: "EUR" } }), {
      status: 403,
      body: { code: "forbidden" },
    });
    t.match(await call(`${server.url}/v1/refunds`, { key: readOnly.api_key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 1 } }), { status: 403 });
    const noLedger = await merchant(["payments:write"]);
    t.match(await call(`${server.url}/v1/balance-transactions`, { key: noLedger.api_key }), { status: 403 });
    t.match(await call(`${server.url}/v1/balance-transactions`, { key: readOnly.api_key }), { status: 200 });
  }),
);

t.test("a refund or capture in another currency than the intent answers 422 currency_mismatch", (t) =>
  forEachDialectConfig(t, "currency mismatch", async (t, _config, dialect) => {
    const { server, merchant } = await startPaymentsServer(t, dialect);
    const { api_key: key } = await merchant();
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 800, currency: "EUR" } });
    const id = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const refund = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 100, currency: "USD" } });
    t.match(refund, { status: 422, body: { code: "currency_mismatch" } });
    t.equal(refund.headers.get("content-type"), "application/problem+json");
    const badCurrency = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 800, currency: "EURO" } });
    t.match(badCurrency, { status: 422 });
    const fractional = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 8.5, currency: "EUR" } });
    t.match(fractional, { status: 422 }, "money is integer minor units");
  }),
);

t.test("API keys and payment tokens never appear in logs or error bodies", (t) =>
  forEachDialectConfig(t, "no secrets", async (t, _config, dialect) => {
    const { server, merchant, logText } = await startPaymentsServer(t, dialect);
    const { api_key: key } = await merchant();
    const bodies: string[] = [];
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 800, currency: "EUR" } });
    const url = `${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`;
    const rawCard = "4242424242424242";
    const badToken = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: rawCard } });
    t.equal(badToken.status, 422, "a raw card number is refused");
    bodies.push(badToken.text);
    const declined = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.declined } });
    bodies.push(declined.text);
    const ok = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    bodies.push(ok.text);
    const forged = `${key.slice(0, -4)}AAAA`;
    const unauthorized = await call(`${server.url}/v1/payment-intents/${String(intent.body.id)}`, { key: forged });
    t.match(unauthorized, { status: 401, body: { code: "invalid_token" } });
    bodies.push(unauthorized.text);
    const missingKey = await fetch(`${server.url}/v1/payment-intents`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ amount_minor: 1, currency: "EUR" }),
    });
    t.equal(missingKey.status, 400, "a mutation without Idempotency-Key is 400");
    bodies.push(await missingKey.text());
    const logs = logText();
    t.ok(logs.length > 0, "the log stream was captured");
    for (const secret of [key, forged, rawCard, sandboxTokens.visa, sandboxTokens.declined]) {
      t.notOk(logs.includes(secret), `the log never contains ${secret.slice(0, 8)}...`);
      for (const body of bodies) t.notOk(body.includes(secret), `no error body contains ${secret.slice(0, 8)}...`);
    }
  }),
);
