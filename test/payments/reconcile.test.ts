/**
 * Provider status reconciliation (spec rule 3) and the module's events: a lost answer schedules
 * a durable job that asks the provider by our stable reference and applies what it did (never a
 * second charge); a reference the provider never saw leaves the intent processing and the job
 * retries; a confirm schedules that job with its attempt, so an answer that is never recorded is
 * resolved too, and cancels it once the answer is in; PaymentSucceeded and RefundSucceeded enter the outbox with their transitions.
 */
import { Effect, Exit } from "effect";
import t from "tap";
import { confirmIntent, reconcileIntentJobKind } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { reconcileIntentJob } from "../../core/payments/Jobs.js";
import type { Job } from "../../ports/Jobs.js";
import { forEachDialect } from "../support/databases.js";
import { refuseUpdates } from "../support/refuseUpdates.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const jobFor = (intentId: string): Job => ({
  id: "job-1",
  kind: reconcileIntentJobKind,
  key: intentId,
  payload: { intent_id: intentId },
  status: "running",
  attempts: 1,
  maxAttempts: 8,
  runAt: new Date(),
  lastError: null,
});

t.test("a reconciliation job resolves a processing intent from the provider's record under our reference", (t) =>
  forEachDialect(t, "reconcile after timeout", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 640, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key", "status"]).execute();
    t.same(jobs, [{ kind: reconcileIntentJobKind, key: intent.id, status: "pending" }], "a durable job was scheduled");
    await run(reconcileIntentJob.run(jobFor(intent.id)));
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 640 });
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "reconciliation never re-sends the charge");
    t.equal(provider.calls.filter((c) => c.operation === "lookup").length, 1);
    t.equal(provider.payments().length, 1);
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NothingToReconcile" }, "running it again changes nothing");
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "posted once");
  }),
);

t.test("when the provider never saw the attempt the intent stays processing and a re-check is scheduled", (t) =>
  forEachDialect(t, "not seen", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 640, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutBefore }));
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NotSeenByProvider" });
    const exit = await run(Effect.exit(reconcileIntentJob.run(jobFor(intent.id))));
    t.ok(Exit.isSuccess(exit), "inside the resolution window the job schedules a durable re-check (test/payments/reconciliation.test.ts covers the window)");
    t.equal((await db.db.selectFrom("jobs").select("id").where("kind", "=", reconcileIntentJobKind).execute()).length, 2);
    t.equal((await run(getIntent(merchant, intent.id))).status, "processing", "never guessed");
    t.equal(provider.payments().length, 0);
  }),
);

t.test("an attempt whose answer was never recorded is resolved by the job its confirm scheduled", (t) =>
  forEachDialect(t, "unrecorded answer", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 820, currency: "EUR" }));
    const restore = await refuseUpdates(db, "payment_attempts");
    await t.rejects(run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })), "recording the provider's answer failed");
    await restore();
    t.equal(provider.payments()[0]?.capturedMinor, 820, "the provider charged");
    t.equal((await run(getIntent(merchant, intent.id))).status, "processing");
    t.match(await attempt(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })), { ok: false, error: { code: "payment_intent_unexpected_state" } }, "a retry is refused: the attempt is in flight");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key", "status"]).where("kind", "=", reconcileIntentJobKind).execute();
    t.same(jobs, [{ kind: reconcileIntentJobKind, key: intent.id, status: "pending" }], "the confirm's own job waits");
    await run(reconcileIntentJob.run(jobFor(intent.id)));
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 820 });
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "charged once");
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "posted once");
  }),
);

t.test("a confirm whose answer is recorded cancels its reconciliation job", (t) =>
  forEachDialect(t, "job cancelled", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const paid = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR" }));
    await run(confirmIntent(merchant, paid.id, { paymentMethod: sandboxTokens.visa }));
    const declined = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR" }));
    await run(confirmIntent(merchant, declined.id, { paymentMethod: sandboxTokens.declined }));
    const jobs = await db.db.selectFrom("jobs").select(["key", "status"]).where("kind", "=", reconcileIntentJobKind).orderBy("key").execute();
    t.same(
      jobs.map((j) => j.status),
      ["cancelled", "cancelled"],
      "nothing left to reconcile after a charge or a decline",
    );
    t.same(jobs.map((j) => j.key).sort(), [paid.id, declined.id].sort());
  }),
);

t.test("PaymentSucceeded and RefundSucceeded are appended to the outbox in the same transaction", (t) =>
  forEachDialect(t, "events", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 300, currency: "USD" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    await run(createRefund(merchant, { intentId: intent.id, amountMinor: 100 }));
    const rows = await db.db.selectFrom("outbox").select(["type", "tenant_id", "event"]).execute();
    t.same(rows.map((r) => r.type), ["PaymentSucceeded", "RefundSucceeded"]);
    t.ok(rows.every((r) => r.tenant_id === merchant.merchantId), "events are tenant-scoped");
    t.notOk(JSON.stringify(rows).includes("pm_card"), "no payment token in any event");
  }),
);
