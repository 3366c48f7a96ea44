/**
 * Spec, Payment service: a mismatch is "resolved by humans", never auto-adjusted; a provider call
 * happens after commit from a keyed job with a durable outcome. A hold (an authorization not
 * captured) the provider reports under an earlier attempt of an intent opens a `status` exception
 * in the event's transaction, once per reference, as a capture does. Resolving it with
 * `refund_stale_capture` gives back what the earlier attempt holds or took: job `exception:<id>`
 * voids a hold under `exception:<id>/void` (the `settled` outcome records `voided`), refunds a
 * capture, and a void the provider refuses opens a `status` exception on the void's object. A run
 * after a lost answer asks again under the same reference; racing runners make one provider call
 * (Postgres: parallel connections). SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { makeSandboxProvider, sandboxTokens, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import { getReconciliationException, resolveReconciliationException } from "../../core/payments/ReconciliationExceptions.js";
import { refundStaleCapture, refundStaleCaptureJob } from "../../core/payments/RefundStaleCapture.js";
import { ReconciliationExceptionId } from "../../core/payments/model/Ids.js";
import type { ProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import type { Principal } from "../../ports/Principal.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { forEachDialect } from "../support/databases.js";
import { financeScopes } from "./settleIntentFixtures.js";
import { call, freshKey, newMerchant, paymentsRuntime } from "./support.js";

/** The sandbox, declining the `declined` token without keeping a record (so attempt 1 is free to be held later). */
const forgetfulDecliner = (): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    authorize: (request) => (request.paymentMethod === sandboxTokens.declined ? Effect.succeed({ _tag: "Declined" as const, declineCode: "card_declined" }) : sandbox.authorize(request)),
  };
};

const heldEvent = (id: string, reference: string): ProviderEvent => ({
  id,
  type: "payment.authorized",
  occurredAt: new Date(),
  data: { kind: "payment", status: "authorized", reference, providerPaymentId: "sbx_pay_late", amountMinor: 1000, capturedMinor: 0, currency: "EUR", declineCode: null },
  payload: {},
});

type Run = (effect: Effect.Effect<any, any, any>) => Promise<any>;

/** An intent of 1000 EUR declined once then captured under attempt 2, and a hold the provider made later under attempt 1. */
const staleHoldAtProvider = async (run: Run, provider: SandboxProvider, merchant: Principal) => {
  const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR" }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.declined }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  const stale = attemptReference(intent.id, 1);
  await run(provider.authorize({ reference: stale, amount: { amount_minor: 1000, currency: "EUR" }, paymentMethod: sandboxTokens.visa, capture: false }));
  return { intent, stale };
};

/** The same, with the hold's event processed: the exception it opened. */
const staleHold = async (run: Run, provider: SandboxProvider, merchant: Principal, db: SqlDatabase["db"]) => {
  const { intent, stale } = await staleHoldAtProvider(run, provider, merchant);
  await run(processProviderEvent(heldEvent(`evt_hold_${stale}`, stale)));
  const row = await db.selectFrom("payment_reconciliation_exceptions").select("id").where("provider_object", "=", stale).executeTakeFirstOrThrow();
  return { intent, stale, exceptionId: ReconciliationExceptionId.make(String(row.id)) };
};

const voids = (provider: SandboxProvider) => provider.calls.filter((c) => c.operation === "void");
const runStaleJobs = (s: { runtime: { runPromise: (e: any) => Promise<any> } }, worker = "stale-hold-test") =>
  s.runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: worker, concurrency: 1 }));
const settledData = async (db: SqlDatabase["db"], exceptionId: string) => {
  const row = await db.selectFrom("payment_reconciliation_outcomes").select("data").where("exception_id", "=", exceptionId).where("action", "=", "settled").executeTakeFirstOrThrow();
  return typeof row.data === "string" ? JSON.parse(row.data) : row.data;
};

t.test("a hold the provider reports under an earlier attempt opens one status exception, and moves nothing", (t) =>
  forEachDialect(t, "stale hold opens", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { intent, stale } = await staleHoldAtProvider(s.run, s.provider, merchant);
    const ledgerBefore = (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

    const receipt = await s.run(processProviderEvent(heldEvent("evt_stale_hold", stale)));
    t.match(receipt, { status: "ignored", reason: /earlier attempt.*hold.*opened.*exception/ });
    const rows = await db.db.selectFrom("payment_reconciliation_exceptions").select(["kind", "subject_id", "provider_object", "status", "observed"]).execute();
    t.equal(rows.length, 1, "one exception");
    t.match(rows[0], { kind: "status", subject_id: intent.id, provider_object: stale, status: "open" });
    t.match(typeof rows[0]?.observed === "string" ? JSON.parse(rows[0].observed) : rows[0]?.observed, { status: "authorized", amount_minor: 1000, captured_minor: 0, currency: "EUR" });
    t.match(await s.run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 1000 }, "the intent is not moved");
    t.equal((await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length, ledgerBefore, "nothing posted");

    t.match(await s.run(processProviderEvent(heldEvent("evt_stale_hold", stale))), { duplicate: true }, "a replay is a duplicate");
    await s.run(processProviderEvent(heldEvent("evt_stale_hold_again", stale)));
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").select("id").execute()).length, 1, "opened once per reference");
  }),
);

t.test("refund_stale_capture voids a hold under an earlier attempt once, under the exception's void reference, however often the job runs", (t) =>
  forEachDialect(t, "stale hold voided", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { stale, exceptionId } = await staleHold(s.run, s.provider, merchant, db.db);
    const ledgerBefore = (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "the customer's card is still held"));
    t.equal(voids(s.provider).length, 0, "nothing called inside the resolution");
    t.match(await runStaleJobs(s), { done: 1 });
    t.match(await runStaleJobs(s), { done: 0 }, "a second pass finds no job");
    t.match(await s.run(refundStaleCapture(exceptionId)), { _tag: "NothingToDo" }, "a later run finds the settled outcome");

    t.same(voids(s.provider).map((c) => c.reference), [`exception:${exceptionId}/void`], "voided once, under the exception's void reference");
    t.equal(s.provider.calls.filter((c) => c.operation === "refund").length, 0, "nothing refunded");
    t.match(s.provider.payments().find((p) => p.reference === stale), { status: "voided" }, "the hold is released at the provider");
    t.same((await s.run(getReconciliationException(merchant, exceptionId))).outcomes.map((o) => o.action), ["opened", "resolved", "settled"]);
    t.match(await settledData(db.db, exceptionId), { result: "voided", reference: `exception:${exceptionId}/void`, amount_minor: 1000, currency: "EUR", stale_reference: stale });
    t.equal((await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length, ledgerBefore, "nothing posted");
  }),
);

t.test("a hold captured after its exception opened is refunded by refund_stale_capture", (t) =>
  forEachDialect(t, "stale hold captured later", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { stale, exceptionId } = await staleHold(s.run, s.provider, merchant, db.db);
    const held = s.provider.payments().find((p) => p.reference === stale);
    await s.run(s.provider.capture({ reference: `${stale}/capture`, providerPaymentId: held?.providerPaymentId ?? "", amount: { amount_minor: 1000, currency: "EUR" } }));

    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    t.match(await runStaleJobs(s), { done: 1 });
    t.equal(voids(s.provider).length, 0, "nothing voided");
    t.same(s.provider.calls.filter((c) => c.operation === "refund").map((c) => c.reference), [`exception:${exceptionId}/refund`], "refunded once");
    t.match(s.provider.payments().find((p) => p.reference === stale), { refundedMinor: 1000 });
    t.match(await settledData(db.db, exceptionId), { result: "refunded", amount_minor: 1000 });
  }),
);

t.test("a void of the stale hold the provider refuses opens a status exception on the void's object and finishes", (t) =>
  forEachDialect(t, "stale hold void refused", async (t, db) => {
    const provider: SandboxProvider = { ...forgetfulDecliner(), void: () => Effect.succeed({ _tag: "Rejected" as const, reason: "payment_not_voidable" }) };
    const s = paymentsRuntime(t, db, provider);
    const merchant = await newMerchant(s.run, financeScopes);
    const { intent, exceptionId } = await staleHold(s.run, provider, merchant, db.db);
    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    t.match(await runStaleJobs(s), { done: 1, retried: 0, dead: 0 });
    await s.run(refundStaleCapture(exceptionId));

    const opened = await db.db.selectFrom("payment_reconciliation_exceptions").selectAll().where("provider_object", "=", `exception:${exceptionId}/void`).execute();
    t.equal(opened.length, 1, "one exception for a human");
    t.match(opened[0], { kind: "status", status: "open", subject_type: "payment_intent", subject_id: intent.id });
    t.match(typeof opened[0]?.observed === "string" ? JSON.parse(opened[0].observed) : opened[0]?.observed, { status: "authorized", refused: "payment_not_voidable" });
    t.same((await s.run(getReconciliationException(merchant, exceptionId))).outcomes.map((o) => o.action), ["opened", "resolved", "settled"]);
    t.match(await settledData(db.db, exceptionId), { result: "refused", operation: "void", refused: "payment_not_voidable" });
  }),
);

t.test("a void of the stale hold whose answer was lost is asked again under the same reference and recorded once", (t) =>
  forEachDialect(t, "stale hold void lost answer", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { stale, exceptionId } = await staleHold(s.run, s.provider, merchant, db.db);
    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    s.provider.injectFault("void", "timeout_after");
    t.match(await s.attempt(refundStaleCapture(exceptionId)), { ok: false, error: { _tag: "ProviderOutcomeUnknown" } }, "the lost answer fails the run");
    t.same((await s.run(getReconciliationException(merchant, exceptionId))).outcomes.map((o) => o.action), ["opened", "resolved"], "nothing recorded");
    t.match(await s.run(refundStaleCapture(exceptionId)), { _tag: "Recorded", result: "voided" }, "the provider's first void is what is recorded");
    t.same([...new Set(voids(s.provider).map((c) => c.reference))], [`exception:${exceptionId}/void`], "the same reference both times");
    t.equal(s.provider.events().filter((e) => e.type === "payment.voided").length, 1, "voided once at the provider");
    t.match(s.provider.payments().find((p) => p.reference === stale), { status: "voided" });
  }),
);

t.test("a stale hold that expired at the provider before the job ran leaves nothing to give back", (t) =>
  forEachDialect(t, "stale hold expired", async (t, db) => {
    const s = paymentsRuntime(t, db, forgetfulDecliner());
    const merchant = await newMerchant(s.run, financeScopes);
    const { stale, exceptionId } = await staleHold(s.run, s.provider, merchant, db.db);
    const held = s.provider.payments().find((p) => p.reference === stale);
    await s.run(s.provider.void({ reference: `${stale}/expired`, providerPaymentId: held?.providerPaymentId ?? "" }));
    await s.run(resolveReconciliationException(merchant, exceptionId, { kind: "refund_stale_capture" }, "give it back"));
    t.match(await runStaleJobs(s), { done: 1, retried: 0, dead: 0 });
    t.match(await settledData(db.db, exceptionId), { result: "nothing_to_refund", observed_status: "voided" });
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").select("id").where("provider_object", "=", `exception:${exceptionId}/void`).execute()).length, 0, "no exception opened");
  }),
);

t.test("racing refund_stale_capture resolutions and runners void a stale hold once (Postgres: parallel connections)", (t) =>
  forEachDialectConfig(t, "stale hold race", async (t, config) => {
    const provider = forgetfulDecliner();
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider })] });
    const runtime = server.core.runtime;
    const created = await createMerchantWithKey(runtime, { name: "Race shop", scopes: financeScopes });
    const principal: Principal = { kind: "merchant", merchantId: created.merchant_id, keyId: created.key_id, scopes: financeScopes };
    const run = (effect: Effect.Effect<any, any, any>) => runtime.runPromise(effect as never);
    const { exceptionId } = await staleHold(run, provider, principal, server.core.database.db);
    const url = `${server.url}/v1/reconciliation-exceptions/${exceptionId}/resolve`;

    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => call(url, { key: created.api_key, idempotencyKey: freshKey(), body: { resolution: "refund_stale_capture", reason: `release the hold ${i}` } })),
    );
    t.equal(answers.filter((a) => a.status === 200).length, 1, "one resolution wins");
    await Promise.all([0, 1].map((i) => runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: `racer-${i}`, concurrency: 1 }))));
    await runtime.runPromise(runJobsOnce([refundStaleCaptureJob], { workerId: "after", concurrency: 1 }));
    t.equal(voids(provider).length, 1, "one provider call");
    const shown = await call(`${server.url}/v1/reconciliation-exceptions/${exceptionId}`, { key: created.api_key });
    t.match(shown.body, { status: "resolved", outcomes: [{ action: "opened" }, { action: "resolved" }, { action: "settled" }] });
  }),
);
