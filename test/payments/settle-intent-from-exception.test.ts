/**
 * Spec, Payment service: ambiguous outcomes "are never guessed"; a reconciliation mismatch opens
 * an exception "resolved by humans", "never silently auto-adjusted". An intent whose provider
 * record does not fit (or that the provider never saw) is settled when its exception is resolved
 * with `settle_intent`: a keyed job (`exception:<id>`) asks the provider again after commit and
 * applies a record that fits; a hold below the intent becomes a partial authorization; a hold or
 * capture above the intent or in another currency is voided/refunded at the provider under
 * `exception:<id>/void|refund` and the intent returns to requires_payment_method (attempt
 * declined); an `unresolved` one is released only if the provider still has no record. Audited
 * with the exception. Racing resolutions make one provider call (Postgres: parallel
 * connections). SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import { settleIntentJob } from "../../core/payments/SettleIntent.js";
import { resolveReconciliationException } from "../../core/payments/ReconciliationExceptions.js";
import { reconcileIntentWithinWindow } from "../../core/payments/ReconciliationWindow.js";
import { MerchantId } from "../../core/payments/model/Ids.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { makePaymentsModule, createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { forEachDialect } from "../support/databases.js";
import { anException, call, freshKey, paymentsRuntime } from "./support.js";
import { exceptionAbout, financeScopes, misholding, runSettleJobs } from "./settleIntentFixtures.js";

const runJobs = runSettleJobs;

const attemptOf = async (db: SqlDatabase, intentId: string) =>
  db.db.selectFrom("payment_attempts").select(["status", "decline_code"]).where("intent_id", "=", intentId).executeTakeFirstOrThrow();

const auditActions = async (db: SqlDatabase, intentId: string) =>
  (await db.db.selectFrom("payment_audit_log").select(["action", "reason"]).where("subject_id", "=", intentId).execute()).filter((r) => String(r.action).endsWith("_from_exception"));

const ledgerCount = async (db: SqlDatabase) => (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

t.test("a hold above the intent is voided at the provider once and the intent returns to requires_payment_method", (t) =>
  forEachDialect(t, "settle: hold above", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(500));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "manual");
    t.equal(exception.kind, "amount");
    const resolved = await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "the provider held 15.00 for a 10.00 intent"));
    t.match(resolved, { status: "resolved", resolution: { kind: "settle_intent" } });
    t.equal(s.provider.calls.filter((c) => c.operation === "void").length, 0, "nothing called inside the resolution");
    const pass = await runJobs(s);
    t.match(pass, { done: 1 });
    t.same(s.provider.calls.filter((c) => c.operation === "void").map((c) => c.reference), [`exception:${exception.id}/void`], "voided once, under the exception's reference");
    t.equal(s.provider.payments()[0]?.status, "voided");
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "requires_payment_method", amountCapturableMinor: 0, amountCapturedMinor: 0 });
    t.same(await attemptOf(db, intent.id), { status: "declined", decline_code: "reconciliation_released" });
    t.match(await auditActions(db, intent.id), [{ action: "payment_intent.released_from_exception", reason: new RegExp(exception.id) }]);
    t.equal(await ledgerCount(db), 0, "nothing posted");
    await runJobs(s);
    t.equal(s.provider.calls.filter((c) => c.operation === "void").length, 1, "a later pass calls nothing");
  }),
);

t.test("a capture in another currency is refunded at the provider and the intent returns to requires_payment_method", (t) =>
  forEachDialect(t, "settle: other currency", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(0, "USD"));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "automatic");
    t.equal(exception.kind, "currency");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "charged in dollars"));
    await runJobs(s);
    t.same(s.provider.calls.filter((c) => c.operation === "refund").map((c) => c.reference), [`exception:${exception.id}/refund`]);
    t.match(s.provider.payments()[0], { refundedMinor: 1000, amount: { currency: "USD" } }, "the whole capture given back");
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "requires_payment_method", amountCapturedMinor: 0 });
    t.same(await attemptOf(db, intent.id), { status: "declined", decline_code: "reconciliation_released" });
    t.equal(await ledgerCount(db), 0, "nothing posted");
  }),
);

t.test("a hold below the intent is applied as a partial authorization: capturable is what the provider holds", (t) =>
  forEachDialect(t, "settle: hold below", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(-400));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "manual");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "held 6.00 of 10.00"));
    await runJobs(s);
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturableMinor: 600, amountCapturedMinor: 0 });
    t.equal((await attemptOf(db, intent.id)).status, "authorized");
    t.match(await auditActions(db, intent.id), [{ action: "payment_intent.settled_from_exception" }]);
    t.equal(s.provider.calls.filter((c) => c.operation === "void" || c.operation === "refund").length, 0, "nothing given back");
    const captured = await s.run(captureIntent(merchant, intent.id, {}));
    t.match(captured, { status: "succeeded", amountCapturedMinor: 600 }, "captured what the provider held");
  }),
);

t.test("a capture below the intent is applied as it stands, with its posting", (t) =>
  forEachDialect(t, "settle: capture below", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(-400));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "automatic");
    t.equal(exception.kind, "amount");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "captured 6.00 of 10.00"));
    await runJobs(s);
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 600, amountCapturableMinor: 0 });
    const entries = (await db.db.selectFrom("payment_ledger_entries").select("amount_minor").execute()).map((e) => Number(e.amount_minor)).sort((a, b) => a - b);
    t.same(entries, [-600, 600], "the capture the provider made is posted");
    t.equal(s.provider.calls.filter((c) => c.operation === "void" || c.operation === "refund").length, 0, "nothing given back");
  }),
);

t.test("an unresolved intent is released only if the provider still has no record", (t) =>
  forEachDialect(t, "settle: unresolved", async (t, db) => {
    const s = paymentsRuntime(t, db);
    const never = await exceptionAbout(t, s, db, "automatic", sandboxTokens.timeoutBefore, 16 * 60_000);
    t.equal(never.exception.kind, "unresolved");
    await s.run(resolveReconciliationException(never.merchant, never.exception.id, { kind: "settle_intent" }, "never reached the provider"));
    await runJobs(s);
    t.match(await s.run(getIntent(never.merchant, never.intent.id)), { status: "requires_payment_method" });
    t.match(await auditActions(db, never.intent.id), [{ action: "payment_intent.released_from_exception" }]);

    // The provider acted meanwhile (a late request): its record is applied, never released.
    const late = await exceptionAbout(t, s, db, "automatic", sandboxTokens.timeoutBefore, 16 * 60_000);
    await s.run(s.provider.authorize({ reference: attemptReference(late.intent.id, 1), amount: { amount_minor: 1000, currency: "EUR" }, paymentMethod: sandboxTokens.visa, capture: true }));
    await s.run(resolveReconciliationException(late.merchant, late.exception.id, { kind: "settle_intent" }, "look again"));
    await runJobs(s);
    t.match(await s.run(getIntent(late.merchant, late.intent.id)), { status: "succeeded", amountCapturedMinor: 1000 });
    t.equal((await attemptOf(db, late.intent.id)).status, "captured");
  }),
);

t.test("settle_intent is refused for an intent that is no longer processing (409) and for an exception about no intent (422)", (t) =>
  forEachDialect(t, "settle: refused", async (t, db) => {
    const s = paymentsRuntime(t, db);
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "automatic", sandboxTokens.timeoutBefore, 16 * 60_000);
    // A confirm retried after the exception opened went through: the intent is settled already.
    t.equal((await s.run(confirmIntent(merchant, intent.id, {}))).outcome, "succeeded");
    const late = await s.attempt(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "too late"));
    t.match(late, { ok: false, error: { _tag: "IllegalTransition", code: "payment_intent_unexpected_state" } });
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").select("status").where("id", "=", exception.id).executeTakeFirstOrThrow()).status, "open", "still open");
    const aboutRefund = anException({ merchantId: MerchantId.make(merchant.merchantId), subjectType: "refund", subjectId: "re_x", kind: "amount" });
    await s.run(Effect.flatMap(ReconciliationRepository, (repo) => repo.insertException(aboutRefund)));
    const refused = await s.attempt(resolveReconciliationException(merchant, aboutRefund.id, { kind: "settle_intent" }, "not an intent"));
    t.match(refused, { ok: false, error: { _tag: "ValidationFailed" } });
    t.equal((await db.db.selectFrom("jobs").select("id").where("kind", "=", "payments.settle_intent").execute()).length, 0, "nothing scheduled");
  }),
);

t.test("racing settle_intent resolutions make one provider call (Postgres: parallel connections)", (t) =>
  forEachDialectConfig(t, "settle: race", async (t, config) => {
    const sandbox = misholding(500);
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: sandbox })] });
    const runtime = server.core.runtime;
    const created = await createMerchantWithKey(runtime, { name: "Race shop", scopes: financeScopes });
    const other = await createMerchantWithKey(runtime, { name: "Other shop", scopes: financeScopes });
    const principal = { kind: "merchant" as const, merchantId: created.merchant_id, keyId: created.key_id, scopes: financeScopes };
    const intent = await runtime.runPromise(createIntent(principal, { amountMinor: 1000, currency: "EUR", captureMethod: "manual" }));
    await runtime.runPromise(confirmIntent(principal, intent.id, { paymentMethod: sandboxTokens.visa }));
    await runtime.runPromise(reconcileIntentWithinWindow(intent.id));
    const db = server.core.database.db;
    const row = await db.selectFrom("payment_reconciliation_exceptions").select("id").where("subject_id", "=", intent.id).executeTakeFirstOrThrow();
    const url = `${server.url}/v1/reconciliation-exceptions/${String(row.id)}/resolve`;

    const foreign = await call(url, { key: other.api_key, idempotencyKey: freshKey(), body: { resolution: "settle_intent", reason: "not mine" } });
    t.equal(foreign.status, 404, "another merchant's exception is 404");
    const bad = await call(url, { key: created.api_key, idempotencyKey: freshKey(), body: { resolution: "settle", reason: "x" } });
    t.equal(bad.status, 422);
    t.match(bad.headers.get("content-type"), /application\/problem\+json/);

    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(url, { key: created.api_key, idempotencyKey: freshKey(), body: { resolution: "settle_intent", reason: `settle ${i}` } })),
    );
    t.equal(answers.filter((a) => a.status === 200).length, 1, "one resolution wins");
    t.ok(answers.every((a) => a.status === 200 || a.status === 409), "the others are 409");
    const jobs = await db.selectFrom("jobs").select("key").where("kind", "=", "payments.settle_intent").execute();
    t.same(jobs.map((j) => j.key), [`exception:${String(row.id)}`], "one keyed job");
    await Promise.all([0, 1].map((i) => runtime.runPromise(runJobsOnce([settleIntentJob], { workerId: `racer-${i}`, concurrency: 1 }))));
    await runtime.runPromise(runJobsOnce([settleIntentJob], { workerId: "after", concurrency: 1 }));
    // The server's own worker may hold the job's lease (on a loaded machine, still recording the
    // provider's answer): wait until the job is finished, whoever ran it.
    const finishedBy = Date.now() + 20_000;
    while (Date.now() < finishedBy) {
      const job = await db.selectFrom("jobs").select("status").where("kind", "=", "payments.settle_intent").executeTakeFirstOrThrow();
      if (job.status !== "pending" && job.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(sandbox.calls.filter((c) => c.operation === "void").length, 1, "one provider call");
    const stored = await db.selectFrom("payment_intents").select("status").where("id", "=", intent.id).executeTakeFirstOrThrow();
    t.equal(stored.status, "requires_payment_method");
  }),
);
