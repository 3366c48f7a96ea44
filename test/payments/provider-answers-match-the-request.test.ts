/**
 * Spec, Payment service: "Ambiguous provider outcomes become pending and are never guessed as
 * success or failure"; Capture is an "amount-limited" transition; a scheduled reconciliation that
 * "finds a mismatch" opens an exception, "never silently auto-adjusted". A provider answer that
 * does not fit what was asked (a charge above the intent, a capture of another amount than was
 * sent) is not applied as it stands (and never a 500): the intent or refund keeps its state, and
 * reconciliation applies the provider's record when it fits, or opens an exception when it does
 * not. SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { resolveRefund } from "../../core/payments/ResolveRefund.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { reconcileIntentWithinWindow } from "../../core/payments/ReconciliationWindow.js";
import { makeSandboxProvider, sandboxTokens, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { clockAhead } from "../support/clockAhead.js";
import { forEachDialect } from "../support/databases.js";
import { capturedIntent, newMerchant, paymentsRuntime } from "./support.js";

/** The sandbox, except that its answers (and its records) state `extra` more captured than it did. */
const overstatingCharges = (extra: number): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    authorize: (request) =>
      Effect.map(sandbox.authorize(request), (answer) => (answer._tag === "Authorized" && answer.capturedMinor > 0 ? { ...answer, capturedMinor: answer.capturedMinor + extra } : answer)),
    lookup: (reference) =>
      Effect.map(sandbox.lookup(reference), (found) => (found !== null && found.capturedMinor > 0 ? { ...found, capturedMinor: found.capturedMinor + extra } : found)),
  };
};

/** The sandbox, except that its capture answers state `extra` more than it captured (its records are right). */
const overstatingCaptureAnswers = (extra: number): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    capture: (request) => Effect.map(sandbox.capture(request), (answer) => (answer._tag === "Done" ? { ...answer, amountMinor: answer.amountMinor + extra } : answer)),
  };
};

const ledgerEntries = async (db: SqlDatabase) => (await db.db.selectFrom("payment_ledger_entries").select("amount_minor").execute()).map((e) => Number(e.amount_minor));

t.test("a charge answered above the intent's amount is never applied: the intent stays processing and reconciliation opens an amount exception", (t) =>
  forEachDialect(t, "charge above the intent", async (t, db) => {
    const { run } = paymentsRuntime(t, db, overstatingCharges(100));
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR" }));
    const result = await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.equal(result.outcome, "processing", "answered as an outcome not known, not a 500");
    t.match(await run(getIntent(merchant, intent.id)), { status: "processing", amountCapturedMinor: 0 });
    const attempt = await db.db.selectFrom("payment_attempts").select("status").where("intent_id", "=", intent.id).executeTakeFirstOrThrow();
    t.equal(attempt.status, "unknown");
    t.same(await ledgerEntries(db), [], "nothing posted");
    const reconciled = await run(reconcileIntentWithinWindow(intent.id));
    t.same(reconciled, { _tag: "MismatchFound", opened: true }, "the provider's record does not fit: an exception, not a guess");
    const rows = await db.db.selectFrom("payment_reconciliation_exceptions").select(["kind", "subject_id", "status", "settlement_window"]).execute();
    t.same(rows, [{ kind: "amount", subject_id: intent.id, status: "open", settlement_window: "ambiguity_window" }]);
    t.match(await run(getIntent(merchant, intent.id)), { status: "processing", amountCapturedMinor: 0 }, "still not guessed");
    t.same(await run(reconcileIntent(intent.id)), { _tag: "MismatchFound", opened: false }, "opened once");
    t.same(await ledgerEntries(db), []);
  }),
);

t.test("a capture answered for another amount than was sent is not applied; reconciliation applies the provider's record", (t) =>
  forEachDialect(t, "capture answer differs", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db, overstatingCaptureAnswers(50));
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR", captureMethod: "manual" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.match(await attempt(captureIntent(merchant, intent.id, { amountMinor: 600 })), { ok: false, error: { code: "provider_outcome_unknown" } });
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturedMinor: 0 }, "not applied as answered");
    t.same(await ledgerEntries(db), []);
    t.match(await run(reconcileIntent(intent.id)), { _tag: "Resolved", outcome: "succeeded" });
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 600 }, "the provider's record: 600 captured");
    t.same((await ledgerEntries(db)).sort((a, b) => a - b), [-600, 600]);
  }),
);

/** The sandbox, except that its refund answers state `extra` more than it refunded. */
const overstatingRefundAnswers = (extra: number): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    refund: (request) => Effect.map(sandbox.refund(request), (answer) => (answer._tag === "Done" ? { ...answer, amountMinor: answer.amountMinor + extra } : answer)),
  };
};

t.test("a refund answered for another amount than was sent stays pending, is asked again, and reaches a human past the window", (t) =>
  forEachDialect(t, "refund answer differs", async (t, db) => {
    const { run } = paymentsRuntime(t, db, overstatingRefundAnswers(10));
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    const refund = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 300 }));
    t.equal(refund.status, "pending", "not applied as answered");
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 0);
    t.same((await ledgerEntries(db)).sort((a, b) => a - b), [-1000, 1000], "only the capture is posted");
    t.match(await run(resolveRefund(refund.id)), { _tag: "RecheckScheduled" }, "asked again inside the window, not dropped");
    t.same(await run(Effect.withClock(resolveRefund(refund.id), clockAhead(16 * 60_000))), { _tag: "ExceptionOpened", opened: true }, "past the window: a human looks");
    t.equal((await db.db.selectFrom("payment_refunds").select("status").where("id", "=", refund.id).executeTakeFirstOrThrow()).status, "pending", "never guessed");
  }),
);

t.test("a refund answered for another amount reaches a human as an amount exception carrying the answer", (t) =>
  forEachDialect(t, "refund answer differs: exception", async (t, db) => {
    const { run } = paymentsRuntime(t, db, overstatingRefundAnswers(10));
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    const refund = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 300 }));
    await run(Effect.withClock(resolveRefund(refund.id), clockAhead(16 * 60_000)));
    const rows = await db.db.selectFrom("payment_reconciliation_exceptions").select(["id", "kind", "observed"]).where("subject_id", "=", refund.id).execute();
    t.equal(rows.length, 1);
    t.equal(rows[0]?.kind, "amount", "the provider answered: not an unresolved refund");
    const observed = typeof rows[0]?.observed === "string" ? JSON.parse(rows[0].observed) : rows[0]?.observed;
    t.same(observed, { status: "succeeded", amount_minor: 310 }, "what the provider answered");
    const opened = await db.db.selectFrom("payment_reconciliation_outcomes").select("reason").where("exception_id", "=", String(rows[0]?.id)).executeTakeFirstOrThrow();
    t.match(opened.reason, /answered 310/);
    t.notMatch(opened.reason, /no answer/);
  }),
);
