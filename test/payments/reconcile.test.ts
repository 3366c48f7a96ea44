/**
 * Provider status reconciliation (spec rule 3) and the module's events: a lost answer schedules
 * a durable job that asks the provider by our stable reference and applies what it did (never a
 * second charge); a reference the provider never saw leaves the intent processing and the job
 * retries; an attempt whose answer is never recorded is swept after 30 s, marked unknown and
 * reconciled the same way; PaymentSucceeded and RefundSucceeded enter the outbox with their transitions.
 */
import { Effect, Exit } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { PaymentAttemptId } from "../../core/payments/model/Ids.js";
import { confirmIntent, reconcileIntentJobKind } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { reconcileIntentJob } from "../../core/payments/Jobs.js";
import { runningJob } from "../worker/fixtures.js";
import { forEachDialect } from "../support/databases.js";
import { refuseUpdates } from "../support/refuseUpdates.js";
import { clockAhead } from "../support/clockAhead.js";
import { eventually } from "../support/eventually.js";
import { scheduleUnrecordedAnswersSweep, sweepUnrecordedAnswers, unrecordedAfterMs, unrecordedAnswersSweepJob } from "../../core/payments/UnrecordedAnswers.js";
import { capturedIntent, newMerchant, paymentsRuntime } from "./support.js";

const jobFor = (intentId: string) => runningJob({ kind: reconcileIntentJobKind, key: intentId, payload: { intent_id: intentId } });

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

t.test("an attempt whose answer was never recorded is swept after 30 s, marked unknown and reconciled: charged once", (t) =>
  forEachDialect(t, "unrecorded answer", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 820, currency: "EUR" }));
    const restore = await refuseUpdates(db, "payment_attempts");
    await t.rejects(run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })), "recording the provider's answer failed");
    await restore();
    t.equal(provider.payments()[0]?.capturedMinor, 820, "the provider charged");
    t.match(await attempt(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })), { ok: false, error: { code: "payment_intent_unexpected_state" } }, "a retry is refused: the attempt may be in flight");
    t.equal(await run(sweepUnrecordedAnswers), 0, "a call younger than 30 s is left alone");
    t.equal(await run(Effect.withClock(sweepUnrecordedAnswers, clockAhead(unrecordedAfterMs + 1_000))), 1, "older: swept");
    t.equal(await run(Effect.withClock(sweepUnrecordedAnswers, clockAhead(unrecordedAfterMs + 2_000))), 0, "once");
    const row = await db.db.selectFrom("payment_attempts").select("status").where("intent_id", "=", intent.id).executeTakeFirstOrThrow();
    t.equal(row.status, "unknown", "its outcome is unknown, not guessed");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key", "status"]).where("kind", "=", reconcileIntentJobKind).execute();
    t.same(jobs, [{ kind: reconcileIntentJobKind, key: intent.id, status: "pending" }], "the intent's reconciliation is scheduled");
    await run(reconcileIntentJob.run(jobFor(intent.id)));
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 820 });
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "charged once");
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "posted once");
  }),
);

t.test("a swept attempt can be confirmed again: the same reference is re-sent and the provider answers what it did", (t) =>
  forEachDialect(t, "swept then retried", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 300, currency: "EUR" }));
    const restore = await refuseUpdates(db, "payment_attempts");
    await t.rejects(run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa })));
    await restore();
    await run(Effect.withClock(sweepUnrecordedAnswers, clockAhead(unrecordedAfterMs + 1_000)));
    const retried = await run(confirmIntent(merchant, intent.id, {}));
    t.equal(retried.outcome, "succeeded");
    t.equal(new Set(provider.calls.filter((c) => c.operation === "authorize").map((c) => c.reference)).size, 1, "one reference");
    t.equal(provider.payments().length, 1, "one charge");
  }),
);

t.test("answered attempts are never swept, and a confirm schedules no job of its own", (t) =>
  forEachDialect(t, "answered not swept", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const paid = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR" }));
    await run(confirmIntent(merchant, paid.id, { paymentMethod: sandboxTokens.visa }));
    const declined = await run(createIntent(merchant, { amountMinor: 100, currency: "EUR" }));
    await run(confirmIntent(merchant, declined.id, { paymentMethod: sandboxTokens.declined }));
    t.equal(await run(Effect.withClock(sweepUnrecordedAnswers, clockAhead(10 * 60_000))), 0);
    t.equal((await db.db.selectFrom("jobs").select("id").execute()).length, 0, "no job");
  }),
);

t.test("a pending attempt that is not its intent's current one is marked unknown by the sweep, without a reconciliation", (t) =>
  forEachDialect(t, "stale older attempt", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 100, "EUR");
    const first = await run(Effect.flatMap(PaymentsRepository, (r) => r.findAttempt(intent.id, 1)));
    const old = new Date(Date.now() - 60_000);
    await run(Effect.flatMap(PaymentsRepository, (r) => r.insertAttempt({ ...first!, id: PaymentAttemptId.make(randomUUID()), number: 7, reference: "stale-7", status: "pending", createdAt: old, updatedAt: old })));
    t.equal(await run(sweepUnrecordedAnswers), 1, "swept, so it does not come back every minute");
    t.equal((await run(Effect.flatMap(PaymentsRepository, (r) => r.findAttempt(intent.id, 7))))?.status, "unknown");
    t.equal((await db.db.selectFrom("jobs").select("id").where("kind", "=", reconcileIntentJobKind).execute()).length, 0, "the succeeded intent is not reconciled");
  }),
);

t.test("a live answer arriving after the sweep marked its attempt is applied once, and the reconciliation then finds nothing", (t) =>
  forEachDialect(t, "sweep races the answer", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db, makeSandboxProvider({ latencyMs: 1_500 }));
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 450, currency: "EUR" }));
    const confirming = run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    // While the provider call is in flight, a sweep that believes it is 31 s later marks the attempt.
    await eventually(() => db.db.selectFrom("payment_attempts").select("id").where("intent_id", "=", intent.id).execute(), (rows) => rows.length === 1);
    t.equal(await run(Effect.withClock(sweepUnrecordedAnswers, clockAhead(unrecordedAfterMs + 1_000))), 1, "marked unknown mid-call");
    const confirmed = await confirming;
    t.equal(confirmed.outcome, "succeeded", "the live answer is applied to the unknown attempt");
    await run(reconcileIntentJob.run(jobFor(intent.id)));
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 450 });
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1);
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "posted once");
    t.equal((await db.db.selectFrom("outbox").select("type").where("type", "=", "PaymentSucceeded").execute()).length, 1, "one PaymentSucceeded");
  }),
);

t.test("the sweep runs every minute: each run schedules the next", (t) =>
  forEachDialect(t, "sweep schedule", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const first = Date.parse("2026-11-27T10:00:30.000Z");
    await run(scheduleUnrecordedAnswersSweep(first));
    await run(scheduleUnrecordedAnswersSweep(first + 1_000));
    const scheduled = await db.db.selectFrom("jobs").select(["key", "payload"]).where("kind", "=", unrecordedAnswersSweepJob.kind).execute();
    t.same(scheduled.map((j) => j.key), ["minute-2026-11-27T10:01:00.000Z"], "on the next minute, once");
    await run(unrecordedAnswersSweepJob.run(runningJob({ kind: unrecordedAnswersSweepJob.kind, key: "minute-2026-11-27T10:01:00.000Z", payload: { at: "2026-11-27T10:01:00.000Z" } })));
    const after = await db.db.selectFrom("jobs").select("key").where("kind", "=", unrecordedAnswersSweepJob.kind).orderBy("key").execute();
    t.same(after.map((j) => j.key), ["minute-2026-11-27T10:01:00.000Z", "minute-2026-11-27T10:02:00.000Z"]);
  }),
);

t.test("PaymentSucceeded and RefundSucceeded are appended to the outbox in the same transaction", (t) =>
  forEachDialect(t, "events", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 300, "USD");
    await run(createRefund(merchant, { intentId: intent.id, amountMinor: 100 }));
    const rows = await db.db.selectFrom("outbox").select(["type", "tenant_id", "event"]).execute();
    t.same(rows.map((r) => r.type), ["PaymentSucceeded", "RefundSucceeded"]);
    t.ok(rows.every((r) => r.tenant_id === merchant.merchantId), "events are tenant-scoped");
    t.notOk(JSON.stringify(rows).includes("pm_card"), "no payment token in any event");
  }),
);

/*
 * Spec (Payment service, Endpoints): confirm "Begin[s] or continue[s] provider confirmation"
 * (200/202); "Provider state is reconciled". An intent in requires_action whose webhook is lost
 * after the customer authenticated is repaired by confirming again and, with no confirm, by the
 * reconcile job scheduled when it entered requires_action.
 */
t.test("a requires_action intent whose webhook is lost is resolved by a second confirm or by the reconcile job", (t) =>
  forEachDialect(t, "requires_action webhook lost", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const ledgerRows = async () => (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

    // Confirm again after the customer authenticated: the provider's record is applied.
    const first = await run(createIntent(merchant, { amountMinor: 930, currency: "EUR" }));
    t.equal((await run(confirmIntent(merchant, first.id, { paymentMethod: sandboxTokens.authenticationRequired }))).outcome, "requires_action");
    const waiting = await attempt(confirmIntent(merchant, first.id, {}));
    t.match(waiting, { ok: true, value: { outcome: "requires_action", intent: { status: "requires_action" } } }, "while the customer has not authenticated, confirm answers it still waits");
    t.not(provider.completeAction(attemptReference(first.id, 1)), null, "the customer authenticates; its webhook is lost");
    const continued = await attempt(confirmIntent(merchant, first.id, {}));
    t.match(continued, { ok: true, value: { outcome: "succeeded", intent: { status: "succeeded", amountCapturedMinor: 930 } } });
    t.equal(await ledgerRows(), 2, "the capture is posted");
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "never charged again");

    // No confirm: the job scheduled on entering requires_action asks the provider.
    const second = await run(createIntent(merchant, { amountMinor: 410, currency: "EUR" }));
    await run(confirmIntent(merchant, second.id, { paymentMethod: sandboxTokens.authenticationRequired }));
    const scheduled = await db.db.selectFrom("jobs").select(["key", "payload"]).where("kind", "=", reconcileIntentJobKind).execute();
    const job = scheduled.find((j) => String(j.key).startsWith(second.id));
    t.ok(job !== undefined, "a reconcile job was scheduled when the intent entered requires_action");
    t.not(provider.completeAction(attemptReference(second.id, 1)), null, "the customer authenticates; its webhook is lost");
    await run(reconcileIntentJob.run(runningJob({ kind: reconcileIntentJobKind, key: String(job?.key), payload: { intent_id: second.id } })));
    t.match(await run(getIntent(merchant, second.id)), { status: "succeeded", amountCapturedMinor: 410 });
    t.equal(await ledgerRows(), 4, "its capture is posted too");
  }),
);
