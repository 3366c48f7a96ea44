/**
 * Spec, Payment service: "Ambiguous provider outcomes become pending and are never guessed as
 * success or failure" and "Provider state is reconciled" — for captures. A capture whose answer is
 * lost (the provider captured, or never received it) leaves the intent requires_capture; the
 * reconciliation job scheduled with the capture looks the payment up by our stable reference and
 * applies what the provider did, with its ledger posting, once. Nothing is re-sent or guessed.
 */
import t from "tap";
import { cancelIntent } from "../../core/payments/CancelIntent.js";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent, reconcileIntentJobKind } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { reconcileIntentJob } from "../../core/payments/Jobs.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import type { ProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { runningJob } from "../worker/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const heldIntent = async (run: ReturnType<typeof paymentsRuntime>["run"], amountMinor: number) => {
  const merchant = await newMerchant(run);
  const intent = await run(createIntent(merchant, { amountMinor, currency: "EUR", captureMethod: "manual" }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  return { merchant, intent };
};

const reconcileJobs = (db: SqlDatabase) =>
  db.db.selectFrom("jobs").select(["key", "status", "payload"]).where("kind", "=", reconcileIntentJobKind).execute();

/** Runs the intent's pending reconciliation job, as the job runner would. */
const runReconciliation = (run: ReturnType<typeof paymentsRuntime>["run"], job: { key: string | null } | undefined, intentId: string) =>
  run(reconcileIntentJob.run(runningJob({ kind: reconcileIntentJobKind, key: job?.key ?? null, payload: { intent_id: intentId } })));

t.test("a capture whose provider answer is lost is never guessed: the reconciliation job finds it captured and posts it once", (t) =>
  forEachDialect(t, "lost capture answer", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 1000);
    provider.injectFault("capture", "timeout_after");
    t.match(await attempt(captureIntent(merchant, intent.id, { amountMinor: 600 })), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.equal(provider.payments()[0]?.capturedMinor, 600, "the provider captured");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturedMinor: 0 }, "not guessed either way");
    const jobs = await reconcileJobs(db);
    t.equal(jobs.filter((job) => job.status === "pending").length, 1, "a durable reconciliation is scheduled with the capture");
    const job = jobs.find((row) => row.status === "pending");
    await runReconciliation(run, job, intent.id);
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 600, amountCapturableMinor: 0 });
    t.equal(provider.calls.filter((c) => c.operation === "capture").length, 1, "reconciliation never re-sends the capture");
    const entries = await db.db.selectFrom("payment_ledger_entries").select(["amount_minor"]).execute();
    t.same(entries.map((e) => Number(e.amount_minor)).sort((a, b) => a - b), [-600, 600], "one balanced capture posting");
    const events = await db.db.selectFrom("outbox").select("type").where("type", "=", "PaymentSucceeded").execute();
    t.equal(events.length, 1, "PaymentSucceeded once");
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NothingToReconcile" }, "running it again changes nothing");
  }),
);

t.test("a capture the provider never received stays requires_capture after reconciliation, and a retry captures once", (t) =>
  forEachDialect(t, "capture never received", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 800);
    provider.injectFault("capture", "timeout_before");
    t.match(await attempt(captureIntent(merchant, intent.id, {})), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.equal(provider.payments()[0]?.capturedMinor, 0, "nothing captured");
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NothingToReconcile" }, "the provider still holds the authorization: nothing to apply");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturableMinor: 800 });
    t.match(await run(captureIntent(merchant, intent.id, {})), { status: "succeeded", amountCapturedMinor: 800 });
    t.equal(provider.payments()[0]?.capturedMinor, 800);
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "posted once");
    t.same(
      (await reconcileJobs(db)).filter((job) => job.status === "pending"),
      [],
      "an answered capture leaves no reconciliation pending",
    );
  }),
);

t.test("a cancel whose void answer is lost is never guessed: the reconciliation job finds the authorization voided and cancels the intent", (t) =>
  forEachDialect(t, "lost void answer", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 500);
    provider.injectFault("void", "timeout_after");
    t.match(await attempt(cancelIntent(merchant, intent.id)), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.equal(provider.payments()[0]?.status, "voided", "the provider voided");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture" }, "not guessed either way");
    const job = (await reconcileJobs(db)).find((row) => row.status === "pending");
    t.ok(job !== undefined, "a durable reconciliation is scheduled with the cancel");
    await runReconciliation(run, job, intent.id);
    t.match(await run(getIntent(merchant, intent.id)), { status: "canceled", amountCapturableMinor: 0, amountCapturedMinor: 0 });
    t.equal(provider.calls.filter((c) => c.operation === "void").length, 1, "reconciliation never re-sends the void");
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 0, "nothing posted");
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NothingToReconcile" }, "running it again changes nothing");
  }),
);

t.test("a cancel answered at once leaves no reconciliation pending, and a void never received keeps the authorization", (t) =>
  forEachDialect(t, "void answered or never received", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 500);
    provider.injectFault("void", "timeout_before");
    t.match(await attempt(cancelIntent(merchant, intent.id)), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.same(await run(reconcileIntent(intent.id)), { _tag: "NothingToReconcile" }, "the provider still holds the authorization");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturableMinor: 500 });
    t.match(await run(cancelIntent(merchant, intent.id)), { status: "canceled" });
    t.same((await reconcileJobs(db)).filter((row) => row.status === "pending"), [], "an answered cancel leaves no reconciliation pending");
  }),
);

t.test("a lost capture found by reconciliation, by the provider's webhook and by a retry at once is applied once (Postgres: parallel connections)", (t) =>
  forEachDialect(t, "capture applied once", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 900);
    provider.injectFault("capture", "timeout_after");
    t.match(await attempt(captureIntent(merchant, intent.id, { amountMinor: 900 })), { ok: false, error: { code: "provider_outcome_unknown" } });
    const payment = provider.payments()[0];
    const captured: ProviderEvent = {
      id: "evt_capture_race",
      type: "payment.captured",
      occurredAt: new Date(),
      data: {
        kind: "payment",
        status: "captured",
        reference: attemptReference(intent.id, 1),
        providerPaymentId: payment?.providerPaymentId ?? null,
        amountMinor: 900,
        capturedMinor: 900,
        currency: "EUR",
        declineCode: null,
      },
      payload: {},
    };
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => run(reconcileIntent(intent.id))),
      run(processProviderEvent(captured)),
      attempt(captureIntent(merchant, intent.id, { amountMinor: 900 })),
    ]);
    const retry = answers[5] as Awaited<ReturnType<typeof attempt>>;
    t.ok(
      retry.ok || (retry.error as { code?: string }).code === "payment_intent_unexpected_state",
      "the retry answers the captured intent, or 409 when it finds it already captured",
    );
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 900 });
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "one capture posting");
    t.equal((await db.db.selectFrom("outbox").select("type").where("type", "=", "PaymentSucceeded").execute()).length, 1, "PaymentSucceeded once");
    t.equal(payment?.capturedMinor, 900, "the provider captured once");
  }),
);

t.test("a cancel of an intent waiting for authentication whose void answer is lost is reconciled: the provider voided it, so the intent is canceled", (t) =>
  forEachDialect(t, "lost void of requires_action", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 400, currency: "EUR" }));
    t.equal((await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.authenticationRequired }))).outcome, "requires_action");
    provider.injectFault("void", "timeout_after");
    t.match(await attempt(cancelIntent(merchant, intent.id)), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.equal(provider.payments()[0]?.status, "voided", "the provider canceled the payment");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_action" }, "not guessed either way");
    t.same(await run(reconcileIntent(intent.id)), { _tag: "Voided" }, "the provider's record is applied");
    t.match(await run(getIntent(merchant, intent.id)), { status: "canceled", amountCapturedMinor: 0 });
    t.equal(provider.calls.filter((c) => c.operation === "void").length, 1, "the void is not re-sent");
  }),
);

t.test("a lost capture applied by the provider's webhook cancels the capture's reconciliation job in the same transaction", (t) =>
  forEachDialect(t, "capture job cancelled by webhook", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 650);
    provider.injectFault("capture", "timeout_after");
    t.match(await attempt(captureIntent(merchant, intent.id, {})), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.equal((await reconcileJobs(db)).filter((job) => job.status === "pending").length, 1);
    const event: ProviderEvent = {
      id: "evt_capture_webhook",
      type: "payment.captured",
      occurredAt: new Date(),
      data: {
        kind: "payment",
        status: "captured",
        reference: attemptReference(intent.id, 1),
        providerPaymentId: provider.payments()[0]?.providerPaymentId ?? null,
        amountMinor: 650,
        capturedMinor: 650,
        currency: "EUR",
        declineCode: null,
      },
      payload: {},
    };
    t.match(await run(processProviderEvent(event)), { status: "processed" });
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 650 });
    t.same((await reconcileJobs(db)).filter((job) => job.status === "pending"), [], "the applied answer leaves the job nothing to do: it is cancelled");
  }),
);
