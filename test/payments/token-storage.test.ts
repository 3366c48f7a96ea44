/**
 * Spec, Payment service (Resources, rule 4): "Tokens are provider tokens. Raw card numbers and CVV
 * are never stored." The HTTP routes only take `pm_…` tokens; the core itself (which the in-process
 * payment gateway calls with whatever another module or an embedding host passes) refuses anything
 * else before it stores or sends it, without echoing it, and the database refuses to store it in
 * an intent or an attempt — SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";
import { intentRow } from "./intentRows.js";

const cardNumber = "4242424242424242";

t.test("raw card numbers are never stored: the core refuses a payment method that is not a provider token, without echoing it", (t) =>
  forEachDialect(t, "core refuses raw card data", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const created = await attempt(createIntent(merchant, { amountMinor: 500, currency: "EUR", paymentMethod: cardNumber }));
    t.match(created, { ok: false, error: { code: "validation_failed", errors: [{ path: "payment_method" }] } });
    t.notOk(JSON.stringify(created).includes(cardNumber), "the number is not echoed");
    const intent = await run(createIntent(merchant, { amountMinor: 500, currency: "EUR" }));
    for (const method of [cardNumber, `${sandboxTokens.visa} cvc 123`, "pm_"]) {
      const confirmed = await attempt(confirmIntent(merchant, intent.id, { paymentMethod: method }));
      t.match(confirmed, { ok: false, error: { code: "validation_failed" } }, `confirm refuses ${method.length} characters that are no token`);
    }
    t.equal(provider.calls.length, 0, "nothing was sent to the provider");
    const stored = [
      ...(await db.db.selectFrom("payment_intents").select("payment_method").execute()),
      ...(await db.db.selectFrom("payment_attempts").select("payment_method").execute()),
    ];
    t.same(stored, [{ payment_method: null }], "only the intent without a payment method was stored");
    t.match(await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })), { outcome: "succeeded" }, "a provider token still pays");
  }),
);

t.test("raw card numbers are never stored: the database refuses a payment method that is not a provider token", (t) =>
  forEachDialect(t, "database refuses raw card data", async (t, database) => {
    const db = database.db as Kysely<any>;
    const at = new Date().toISOString();
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
    const intent = (id: string, paymentMethod: string | null) =>
      intentRow(id, { status: "requires_payment_method", amount_captured_minor: 0, payment_method: paymentMethod, provider_payment_id: null, attempt_count: 0 });
    await t.rejects(db.insertInto("payment_intents").values(intent("raw", cardNumber)).execute(), "an intent with a card number is refused");
    await db.insertInto("payment_intents").values(intent("tokenized", "pm_card_visa")).execute();
    await db.insertInto("payment_intents").values(intent("none", null)).execute();
    await t.rejects(db.updateTable("payment_intents").set({ payment_method: cardNumber }).where("id", "=", "none").execute(), "nor can one be set later");
    const attempt = (n: number, paymentMethod: string) => ({
      id: `attempt-${n}`,
      intent_id: "tokenized",
      merchant_id: "merchant-a",
      number: n,
      reference: `ref-${n}`,
      payment_method: paymentMethod,
      status: "pending",
      provider_payment_id: null,
      decline_code: null,
      created_at: at,
      updated_at: at,
    });
    await t.rejects(db.insertInto("payment_attempts").values(attempt(1, cardNumber)).execute(), "an attempt with a card number is refused");
    await t.rejects(db.insertInto("payment_attempts").values(attempt(1, "pm_card visa 123")).execute(), "a token carrying anything else is refused");
    await db.insertInto("payment_attempts").values(attempt(1, "pm_card_visa")).execute();
    t.equal((await db.selectFrom("payment_attempts").select("id").execute()).length, 1);
  }),
);
