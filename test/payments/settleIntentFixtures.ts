/**
 * Fixtures of the settle_intent tests: a sandbox that holds another amount and loses its answer, an
 * intent left processing with the exception reconciliation opened about it, and the job runner.
 */
import { Effect } from "effect";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { makeSandboxProvider, sandboxTokens, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { ProviderOutcomeUnknown } from "../../core/payments/Errors.js";
import { settleIntentJob } from "../../core/payments/SettleIntent.js";
import { reconcileIntentWithinWindow } from "../../core/payments/ReconciliationWindow.js";
import { ReconciliationExceptionId } from "../../core/payments/model/Ids.js";
import type { CaptureMethod } from "../../core/payments/model/PaymentIntent.js";
import { clockAhead } from "../support/clockAhead.js";
import type { TapTest } from "../support/databases.js";
import { allScopes, newMerchant, paymentsRuntime } from "./support.js";

export const financeScopes = [...allScopes, "reconciliation:write"];

/**
 * The sandbox, except that it authorizes `delta` more (or less) than asked, in `currency` when
 * given, and the answer to every authorization is lost (the provider acted).
 */
export const misholding = (delta: number, currency?: string): SandboxProvider => {
  const sandbox = makeSandboxProvider();
  return {
    ...sandbox,
    authorize: (request) =>
      Effect.flatMap(
        sandbox.authorize({ ...request, amount: { amount_minor: request.amount.amount_minor + delta, currency: currency ?? request.amount.currency } }),
        () => Effect.fail(new ProviderOutcomeUnknown({ operation: "authorize", detail: "The answer was lost." })),
      ),
  };
};

export type Run = ReturnType<typeof paymentsRuntime>;

/** A merchant's intent of 1000 EUR left processing, and the exception reconciliation opened about it. */
export const exceptionAbout = async (t: TapTest, s: Run, db: SqlDatabase, captureMethod: CaptureMethod, paymentMethod: string = sandboxTokens.visa, window = 0) => {
  const merchant = await newMerchant(s.run, financeScopes);
  const intent = await s.run(createIntent(merchant, { amountMinor: 1000, currency: "EUR", captureMethod }));
  t.equal((await s.run(confirmIntent(merchant, intent.id, { paymentMethod }))).outcome, "processing");
  await s.run(Effect.withClock(reconcileIntentWithinWindow(intent.id), clockAhead(window)));
  const row = await db.db.selectFrom("payment_reconciliation_exceptions").select(["id", "kind"]).where("subject_id", "=", intent.id).executeTakeFirstOrThrow();
  return { merchant, intent, exception: { id: ReconciliationExceptionId.make(String(row.id)), kind: row.kind } };
};

/** One pass of the settlement job's runner. */
export const runSettleJobs = (s: Run) => s.runtime.runPromise(runJobsOnce([settleIntentJob], { workerId: "settle-test", concurrency: 1 }));
