/**
 * Rate limit by risk signal (spec, Payment service limits: "Rate limits apply by credential,
 * merchant, IP and risk signal"): an intent declined 5 times within an hour takes no new attempt —
 * 429 `confirm_risk` with Retry-After until the oldest decline leaves the hour — so card after card
 * cannot be tried on it. Nothing is recorded and the provider is not called; other intents are not
 * affected; the window passes and the intent is confirmable again.
 */
import { Effect } from "effect";
import t from "tap";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { confirmRisk } from "../../core/payments/ConfirmRisk.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { clockAhead } from "../support/clockAhead.js";
import { forEachDialect } from "../support/databases.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { call, freshKey, newMerchant, paymentsRuntime, startPaymentsServer } from "./support.js";

const hourMs = 3_600_000;

t.test("an intent declined 5 times within the hour refuses a new attempt with 429 confirm_risk until the oldest decline is an hour old", (t) =>
  forEachDialect(t, "confirm risk", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    t.equal(confirmRisk.max, 5, "the documented bound");
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 700, currency: "EUR" }));
    for (let i = 1; i <= 5; i++) {
      t.equal((await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.declined }))).outcome, "declined", `decline ${i}`);
    }
    const callsBefore = provider.calls.length;
    const refused = await attempt(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.match(refused, { ok: false, error: { code: "confirm_risk", category: "rate_limited" } });
    if (!refused.ok) {
      const retryAfter = (refused.error as { retryAfterSeconds: number }).retryAfterSeconds;
      t.ok(retryAfter > hourMs / 1000 - 120 && retryAfter <= hourMs / 1000, `Retry-After is about an hour (${retryAfter} s)`);
    }
    t.equal(provider.calls.length, callsBefore, "the provider was not called");
    const attempts = await db.db.selectFrom("payment_attempts").select("number").where("intent_id", "=", intent.id).execute();
    t.equal(attempts.length, 5, "no attempt was recorded");

    const other = await run(createIntent(merchant, { amountMinor: 700, currency: "EUR" }));
    t.equal((await run(confirmIntent(merchant, other.id, { paymentMethod: sandboxTokens.visa }))).outcome, "succeeded", "another intent is not affected");

    const later = await run(Effect.withClock(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }), clockAhead(hourMs + 60_000)));
    t.equal(later.outcome, "succeeded", "an hour after the declines the intent takes an attempt again");
  }),
);

t.test("over HTTP the refused confirm is 429 problem+json confirm_risk with Retry-After", (t) =>
  forEachDialectConfig(t, "confirm risk over HTTP", async (t, _config, dialect) => {
    const { server, merchant } = await startPaymentsServer(t, dialect);
    const { api_key: key } = await merchant();
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } });
    const url = `${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`;
    for (let i = 0; i < 5; i++) t.equal((await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.declined } })).status, 402);
    const refused = await call(url, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    t.equal(refused.status, 429);
    t.equal(refused.headers.get("content-type"), "application/problem+json");
    t.equal(refused.body.code, "confirm_risk");
    t.ok(Number(refused.headers.get("retry-after")) > 3000, "Retry-After until the oldest decline is an hour old");
    t.match(await call(`${server.url}/v1/payment-intents/${String(intent.body.id)}`, { key }), { status: 200, body: { status: "requires_payment_method" } }, "the intent did not move");
  }),
);
