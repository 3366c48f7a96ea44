/**
 * Spec, Payment service: a mismatch is "resolved by humans", never auto-adjusted; a provider call
 * happens after commit from a keyed job with a durable outcome. A capture the provider made under
 * an earlier attempt of an intent (its exception opened by the provider's event) is given back
 * when a human resolves the exception with `refund_stale_capture`: job `exception:<id>` refunds
 * what is captured and not refunded under `exception:<id>/refund`, records the exception's
 * `settled` outcome and posts nothing (the capture was never ours in the ledger). Only for an
 * exception about an earlier attempt (else 422); racing resolutions and runners make one provider
 * call (Postgres: parallel connections). SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { makeSandboxProvider, sandboxTokens, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { ProviderOutcomeUnknown } from "../../core/payments/Errors.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import { getReconciliationException, resolveReconciliationException } from "../../core/payments/ReconciliationExceptions.js";
import { refundStaleCapture, refundStaleCaptureJob } from "../../core/payments/RefundStaleCapture.js";
import { MerchantId, ReconciliationExceptionId } from "../../core/payments/model/Ids.js";
import type { ProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import type { Principal } from "../../ports/Principal.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { forEachDialect } from "../support/databases.js";
import { financeScopes } from "./settleIntentFixtures.js";
import { call, freshKey, newMerchant, paymentsRuntime } from "./support.js";

/** The sandbox, declining the `declined` token without keeping a record (so attempt 1 is free to be captured later). */
const forgetfulDecliner = (): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    authorize: (request) => (request.paymentMethod === sandboxTokens.declined ? Effect.succeed({ _tag: "Declined" as const, declineCode: "card_declined" }) : sandbox.authorize(request)),
  };
};

const capturedEvent = (reference: string): ProviderEvent => ({
  id: `evt_${reference}`,
  type: "payment.captured",
  occurredAt: new Date(),
  data: { kind: "payment", status: "captured", reference, providerPaymentId: "sbx_pay_late", amountMinor: 1000, capturedMinor: 1000, currency: "EUR", declineCode: null },
  payload: {},
});

/**
 * An intent of 1000 EUR declined once then captured under attempt 2, a capture the provider made
 * later under attempt 1, and the exception its event opened.
 */
const staleCapture = async (run: (effect: Effect.Effect<any, any, any>) => Promise<any>, provider: SandboxProvider, merchant: Principal, db: SqlDatabase["db"]) => {
  const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR" }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.declined }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  const stale = attemptReference(intent.id, 1);
  await run(provider.authorize({ reference: stale, amount: { amount_minor: 1000, currency: "EUR" }, paymentMethod: sandboxTokens.visa, capture: true }));
  await run(processProviderEvent(capturedEvent(stale)));
  const row = await db.selectFrom("payment_reconciliation_exceptions").select("id").where("provider_object", "=", stale).executeTakeFirstOrThrow();
  return { intent, stale, exceptionId: ReconciliationExceptionId.make(String(row.id)) };
};

const refunds = (provider: SandboxProvider) => provider.calls.filter((c) => c.operation === "refund");

t.test("a capture under an earlier attempt is refunded once after the resolution commits, and nothing is posted", (t) =>
  forEachDialect(t, "stale capture refunded", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { intent, stale, exceptionId } = await staleCapture(s.run, s.provider, merchant, db.db);
    const ledgerBefore = (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "the customer paid twice"));
    t.equal(refunds(s.provider).length, 0, "nothing called inside the resolution");
    const jobs = await db.db.selectFrom("jobs").select("key").where("kind", "=", "payments.refund_stale_capture").execute();
    t.same(jobs.map((j) => j.key), [`exception:${exceptionId}`], "one keyed job");
    t.match(await s.runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: "stale-test", concurrency: 1 })), { done: 1 });

    t.same(refunds(s.provider).map((c) => c.reference), [`exception:${exceptionId}/refund`], "refunded once, under the exception's reference");
    t.match(s.provider.payments().find((p) => p.reference === stale), { refundedMinor: 1000 }, "the whole stale capture given back");
    const { outcomes } = await s.run(getReconciliationException(merchant, exceptionId));
    t.same(outcomes.map((o) => o.action), ["opened", "resolved", "settled"]);
    const settled = await db.db.selectFrom("payment_reconciliation_outcomes").select("data").where("exception_id", "=", exceptionId).where("action", "=", "settled").executeTakeFirstOrThrow();
    t.match(typeof settled.data === "string" ? JSON.parse(settled.data) : settled.data, { result: "refunded", amount_minor: 1000, stale_reference: stale });
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 1000, amountRefundedMinor: 0 }, "the intent is not moved");
    t.equal((await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length, ledgerBefore, "nothing posted");

    t.match(await s.run(refundStaleCapture(exceptionId)), { _tag: "NothingToDo" }, "a later run finds the settled outcome");
    t.equal(refunds(s.provider).length, 1, "and calls nothing");
  }),
);

t.test("a refund of the stale capture the provider refuses opens a status exception on the refund's object and finishes", (t) =>
  forEachDialect(t, "stale capture refused", async (t, db) => {
    const base = forgetfulDecliner();
    const provider: SandboxProvider = { ...base, refund: () => Effect.succeed({ _tag: "Rejected" as const, reason: "charge_disputed" }) };
    const s = paymentsRuntime(t, db, provider);
    const merchant = await newMerchant(s.run, financeScopes);
    const { exceptionId } = await staleCapture(s.run, provider, merchant, db.db);
    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    t.match(await s.runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: "stale-test", concurrency: 1 })), { done: 1, retried: 0, dead: 0 });
    const opened = await db.db.selectFrom("payment_reconciliation_exceptions").select(["kind", "status"]).where("provider_object", "=", `exception:${exceptionId}/refund`).execute();
    t.same(opened, [{ kind: "status", status: "open" }], "one exception for a human");
    t.same((await s.run(getReconciliationException(merchant, exceptionId))).outcomes.map((o) => o.action), ["opened", "resolved", "settled"]);
  }),
);

t.test("a refund whose answer was lost is asked again under the same reference and recorded once", (t) =>
  forEachDialect(t, "stale capture lost answer", async (t, db) => {
    const base = forgetfulDecliner();
    let lose = true;
    const provider: SandboxProvider = {
      ...base,
      refund: (request) =>
        Effect.flatMap(base.refund(request), (answer) => {
          if (!lose) return Effect.succeed(answer);
          lose = false;
          return Effect.fail(new ProviderOutcomeUnknown({ operation: "refund", detail: "The answer was lost." }));
        }),
    };
    const s = paymentsRuntime(t, db, provider);
    const merchant = await newMerchant(s.run, financeScopes);
    const { stale, exceptionId } = await staleCapture(s.run, provider, merchant, db.db);
    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    t.match(await s.attempt(refundStaleCapture(exceptionId)), { ok: false, error: { _tag: "ProviderOutcomeUnknown" } }, "the lost answer fails the run");
    t.same((await s.run(getReconciliationException(merchant, exceptionId))).outcomes.map((o) => o.action), ["opened", "resolved"], "nothing recorded");
    t.match(await s.run(refundStaleCapture(exceptionId)), { _tag: "Recorded", result: "refunded" });
    t.same([...new Set(refunds(provider).map((c) => c.reference))], [`exception:${exceptionId}/refund`], "the same reference both times");
    t.match(provider.payments().find((p) => p.reference === stale), { refundedMinor: 1000 }, "refunded once at the provider");
  }),
);

t.test("refund_stale_capture is refused (422) for an exception about no earlier attempt, and schedules nothing", (t) =>
  forEachDialect(t, "stale capture refused kinds", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { intent } = await staleCapture(s.run, s.provider, merchant, db.db);
    // A capture reported under the current attempt's reference is no stale capture.
    const current = await s.run(
      Effect.gen(function* () {
        const repo = yield* ReconciliationRepository;
        const id = ReconciliationExceptionId.make(`rex_current_${intent.id}`);
        yield* repo.insertException({
          id,
          merchantId: MerchantId.make(merchant.merchantId),
          providerObject: attemptReference(intent.id, 2),
          settlementWindow: "2026-11-28",
          kind: "amount",
          subjectType: "payment_intent",
          subjectId: intent.id,
          expected: null,
          observed: null,
          currency: "EUR",
          status: "open",
          resolution: null,
          openedAt: new Date(),
          resolvedAt: null,
        });
        return id;
      }),
    );
    t.match(await s.attempt(resolveReconciliationException(merchant, current, { kind: "refund_stale_capture" }, "not stale")), {
      ok: false,
      error: { _tag: "ValidationFailed" },
    });
    t.equal((await db.db.selectFrom("jobs").select("id").where("kind", "=", "payments.refund_stale_capture").execute()).length, 0, "nothing scheduled");
  }),
);

t.test("racing refund_stale_capture resolutions make one provider call (Postgres: parallel connections)", (t) =>
  forEachDialectConfig(t, "stale capture race", async (t, config) => {
    const provider = forgetfulDecliner();
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider })] });
    const runtime = server.core.runtime;
    const created = await createMerchantWithKey(runtime, { name: "Race shop", scopes: financeScopes });
    const other = await createMerchantWithKey(runtime, { name: "Other shop", scopes: financeScopes });
    const principal: Principal = { kind: "merchant", merchantId: created.merchant_id, keyId: created.key_id, scopes: financeScopes };
    const run = (effect: Effect.Effect<any, any, any>) => runtime.runPromise(effect as never);
    const { exceptionId } = await staleCapture(run, provider, principal, server.core.database.db);
    const url = `${server.url}/v1/reconciliation-exceptions/${exceptionId}/resolve`;

    const foreign = await call(url, { key: other.api_key, idempotencyKey: freshKey(), body: { resolution: "refund_stale_capture", reason: "not mine" } });
    t.equal(foreign.status, 404, "another merchant's exception is 404");
    const missingKey = await call(url, { key: created.api_key, body: { resolution: "refund_stale_capture", reason: "no key" } });
    t.equal(missingKey.status, 400, "Idempotency-Key required");
    t.match(missingKey.headers.get("content-type"), /application\/problem\+json/);

    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(url, { key: created.api_key, idempotencyKey: freshKey(), body: { resolution: "refund_stale_capture", reason: `give back ${i}` } })),
    );
    t.equal(answers.filter((a) => a.status === 200).length, 1, "one resolution wins");
    t.ok(answers.every((a) => a.status === 200 || a.status === 409), "the others are 409");
    await Promise.all([0, 1].map((i) => runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: `racer-${i}`, concurrency: 1 }))));
    await runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: "after", concurrency: 1 }));
    t.equal(refunds(provider).length, 1, "one provider call");
    const shown = await call(`${server.url}/v1/reconciliation-exceptions/${exceptionId}`, { key: created.api_key });
    t.equal(shown.status, 200);
    t.match(shown.body, { status: "resolved", resolution: { kind: "refund_stale_capture" }, outcomes: [{ action: "opened" }, { action: "resolved" }, { action: "settled", actor: "system:reconciliation" }] }, "the settled outcome is shown");
  }),
);
