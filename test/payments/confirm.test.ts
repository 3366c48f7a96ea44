/**
 * Confirming intents (spec: Payment service, rules 2 and 3): automatic capture ends succeeded,
 * manual capture holds then captures partly, a decline leaves the intent confirmable again, an
 * ambiguous provider answer is processing and never guessed, and a retry re-sends the same
 * provider reference so the customer is never charged twice — on SQLite and Postgres.
 */
import t from "tap";
import { cancelIntent } from "../../core/payments/CancelIntent.js";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { attemptReference, voidReference } from "../../core/payments/ProviderReferences.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";

t.test("with automatic capture a successful confirm ends succeeded and posts the capture", (t) =>
  forEachDialect(t, "automatic capture", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1999, currency: "EUR" }));
    t.equal(intent.status, "requires_payment_method");
    const result = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.equal(result.outcome, "succeeded");
    t.match(result.intent, { status: "succeeded", amountCapturedMinor: 1999, amountCapturableMinor: 0 });
    const entries = await db.db.selectFrom("payment_ledger_entries").select(["amount_minor", "currency"]).execute();
    t.equal(entries.length, 2, "one balanced capture posting");
    t.equal(entries.reduce((sum, e) => sum + Number(e.amount_minor), 0), 0);
  }),
);

t.test("a declined attempt leaves the intent confirmable again with another payment method", (t) =>
  forEachDialect(t, "declined then visa", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 500, currency: "USD" }));
    const declined = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.declined }));
    t.equal(declined.outcome, "declined");
    t.match(declined.intent, { status: "requires_payment_method", lastDeclineCode: "card_declined", amountCapturedMinor: 0 });
    const retried = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.equal(retried.outcome, "succeeded");
    t.equal(retried.intent.attemptCount, 2);
    t.not(provider.calls[0]?.reference, provider.calls[1]?.reference, "each attempt has its own reference");
  }),
);

t.test("with manual capture confirm holds the amount and a partial capture releases the rest", (t) =>
  forEachDialect(t, "manual capture", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR", captureMethod: "manual" }));
    const held = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.match(held.intent, { status: "requires_capture", amountCapturableMinor: 1000, amountCapturedMinor: 0 });
    const tooMuch = await attempt(captureIntent(merchant, intent.id, { amountMinor: 1001 }));
    t.match(tooMuch, { ok: false, error: { code: "amount_too_large", category: "unprocessable" } });
    const wrongCurrency = await attempt(captureIntent(merchant, intent.id, { amountMinor: 100, currency: "USD" }));
    t.match(wrongCurrency, { ok: false, error: { code: "currency_mismatch", category: "unprocessable" } });
    const captured = await run(captureIntent(merchant, intent.id, { amountMinor: 600 }));
    t.match(captured, { status: "succeeded", amountCapturedMinor: 600, amountCapturableMinor: 0 });
    const again = await attempt(captureIntent(merchant, intent.id, { amountMinor: 100 }));
    t.match(again, { ok: false, error: { code: "payment_intent_unexpected_state", category: "conflict" } });
  }),
);

t.test("a timeout after the provider acted leaves the intent processing, never guessed", (t) =>
  forEachDialect(t, "timeout after acting", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 700, currency: "EUR" }));
    const result = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    t.equal(result.outcome, "processing");
    t.match(await run(getIntent(merchant, intent.id)), { status: "processing", amountCapturedMinor: 0 });
    t.equal(provider.payments().length, 1, "the provider did charge");
    const entries = await db.db.selectFrom("payment_ledger_entries").selectAll().execute();
    t.equal(entries.length, 0, "nothing is posted while the outcome is unknown");
  }),
);

t.test("the provider reference is stable across retries, so a retry never charges twice", (t) =>
  forEachDialect(t, "retry after timeout", async (t, db) => {
    const { run, provider, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 700, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    const retried = await run(confirmIntent(merchant, intent.id, {}));
    t.equal(retried.outcome, "succeeded");
    t.equal(retried.intent.amountCapturedMinor, 700);
    t.equal(provider.calls.length, 2);
    t.equal(provider.calls[0]?.reference, provider.calls[1]?.reference, "the retry carries the same reference");
    t.equal(provider.payments().length, 1, "one charge at the provider");
    const again = await attempt(confirmIntent(merchant, intent.id, {}));
    t.match(again, { ok: false, error: { code: "payment_intent_unexpected_state" } }, "a succeeded intent cannot be confirmed again");
  }),
);

t.test("a timeout before the provider acted is processing too, and the retry charges once", (t) =>
  forEachDialect(t, "timeout before acting", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 300, currency: "GBP", captureMethod: "manual" }));
    const first = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutBefore }));
    t.equal(first.outcome, "processing");
    t.equal(provider.payments().length, 0, "nothing happened at the provider");
    const second = await run(confirmIntent(merchant, intent.id, {}));
    t.equal(second.outcome, "requires_capture");
    t.equal(provider.payments().length, 1);
  }),
);

t.test("canceling a held authorization voids it at the provider; a captured intent cannot be canceled", (t) =>
  forEachDialect(t, "cancel", async (t, db) => {
    const { run, provider, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const held = await run(createIntent(merchant, { amountMinor: 900, currency: "EUR", captureMethod: "manual" }));
    await run(confirmIntent(merchant, held.id, { paymentMethod: sandboxTokens.visa }));
    const canceled = await run(cancelIntent(merchant, held.id));
    t.match(canceled, { status: "canceled", amountCapturableMinor: 0 });
    t.equal(provider.payments()[0]?.status, "voided");
    const paid = await run(createIntent(merchant, { amountMinor: 900, currency: "EUR" }));
    await run(confirmIntent(merchant, paid.id, { paymentMethod: sandboxTokens.visa }));
    t.match(await attempt(cancelIntent(merchant, paid.id)), { ok: false, error: { code: "payment_intent_unexpected_state" } });
  }),
);

/*
 * Spec (Payment service): "Provider state is reconciled"; "Every mutation has durable idempotency
 * and state preconditions"; a webhook applies only when the "transition is legal and monotonic".
 * Canceling an intent that waits for the customer's authentication cancels the provider payment
 * first, so finishing 3-D Secure afterwards cannot charge the customer for a canceled intent.
 */
t.test("canceling an intent in requires_action cancels the provider payment, so authentication cannot charge it afterwards", (t) =>
  forEachDialect(t, "cancel requires_action", async (t, db) => {
    const { run, provider, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 700, currency: "EUR" }));
    const confirmed = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.authenticationRequired }));
    t.equal(confirmed.outcome, "requires_action");
    const canceled = await run(cancelIntent(merchant, intent.id));
    t.match(canceled, { status: "canceled" });
    t.ok(provider.calls.some((c) => c.operation === "void" && c.reference === voidReference(intent.id)), "the provider payment was canceled under the void reference");
    t.equal(provider.completeAction(attemptReference(intent.id, 1)), null, "the customer can no longer complete authentication");
    t.match(provider.payments()[0], { status: "voided", capturedMinor: 0 }, "the provider holds and captured nothing");
    t.equal((await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length, 0);

    // The customer authenticated before the cancel and the provider captured (its webhook not
    // yet applied): the provider refuses, nothing is committed, the intent stays reconcilable.
    const raced = await run(createIntent(merchant, { amountMinor: 800, currency: "EUR" }));
    await run(confirmIntent(merchant, raced.id, { paymentMethod: sandboxTokens.authenticationRequired }));
    t.not(provider.completeAction(attemptReference(raced.id, 1)), null);
    t.match(await attempt(cancelIntent(merchant, raced.id)), { ok: false, error: { code: "provider_rejected" } });
    t.match(await run(getIntent(merchant, raced.id)), { status: "requires_action" }, "not canceled over a captured payment");
  }),
);

t.test("confirm without any payment method is 422, and a created intent with one waits in requires_confirmation", (t) =>
  forEachDialect(t, "payment method required", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const bare = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR" }));
    t.match(await attempt(confirmIntent(merchant, bare.id, {})), { ok: false, error: { code: "payment_method_required", category: "unprocessable" } });
    const attached = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR", paymentMethod: sandboxTokens.visa }));
    t.equal(attached.status, "requires_confirmation");
    t.equal((await run(confirmIntent(merchant, attached.id, {}))).outcome, "succeeded");
  }),
);
