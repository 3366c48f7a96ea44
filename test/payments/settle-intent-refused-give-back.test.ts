/**
 * Spec, Payment service: a mismatch is "resolved by humans", never guessed. When the provider
 * refuses the void or refund a `settle_intent` settlement asks for (the record changed meanwhile,
 * say), the settlement opens a `status` exception on the `exception:<id>/void|refund` object for a
 * human, once however often it runs, records the refusal as the exception's `settled` outcome, and
 * the job finishes (no retries, no dead letter); the intent stays processing. SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import type { SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { getReconciliationException, resolveReconciliationException } from "../../core/payments/ReconciliationExceptions.js";
import { settleIntent } from "../../core/payments/SettleIntent.js";
import { forEachDialect } from "../support/databases.js";
import { exceptionAbout, misholding, runSettleJobs } from "./settleIntentFixtures.js";
import { paymentsRuntime } from "./support.js";

/** `provider`, refusing every void and refund. */
const refusingGiveBacks = (provider: SandboxProvider): SandboxProvider => ({
  ...provider,
  void: () => Effect.succeed({ _tag: "Rejected" as const, reason: "payment_not_voidable" }),
  refund: () => Effect.succeed({ _tag: "Rejected" as const, reason: "charge_disputed" }),
});

for (const [captureMethod, operation] of [["manual", "void"], ["automatic", "refund"]] as const) {
  t.test(`a ${operation} the provider refuses during a settlement opens one status exception on its object and finishes the job`, (t) =>
    forEachDialect(t, `settle: ${operation} refused`, async (t, db) => {
      const s = paymentsRuntime(t, db, refusingGiveBacks(misholding(500)));
      const { merchant, intent, exception } = await exceptionAbout(t, s, db, captureMethod);
      await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "the provider took 15.00 for a 10.00 intent"));
      const pass = await runSettleJobs(s);
      t.match(pass, { done: 1, retried: 0, dead: 0 }, "the job finished");
      const job = await db.db.selectFrom("jobs").select(["status", "attempts"]).where("kind", "=", "payments.settle_intent").executeTakeFirstOrThrow();
      t.equal(job.status, "done", "nothing left to retry or dead-letter");

      const opened = await db.db
        .selectFrom("payment_reconciliation_exceptions")
        .selectAll()
        .where("provider_object", "=", `exception:${exception.id}/${operation}`)
        .execute();
      t.equal(opened.length, 1, "one exception on the give-back's object");
      t.match(opened[0], { kind: "status", status: "open", subject_type: "payment_intent", subject_id: intent.id, merchant_id: merchant.merchantId });
      const observed = opened[0]?.observed;
      t.match(typeof observed === "string" ? JSON.parse(observed) : observed, { refused: operation === "void" ? "payment_not_voidable" : "charge_disputed", amount_minor: 1500 });
      t.match(await s.run(getIntent(merchant, intent.id)), { status: "processing" }, "nothing guessed for the intent");

      const { outcomes } = await s.run(getReconciliationException(merchant, exception.id));
      t.same(outcomes.map((o) => o.action), ["opened", "resolved", "settled"], "the refusal is the settlement's recorded outcome");
      const settled = await db.db.selectFrom("payment_reconciliation_outcomes").select("data").where("exception_id", "=", exception.id).where("action", "=", "settled").executeTakeFirstOrThrow();
      t.match(typeof settled.data === "string" ? JSON.parse(settled.data) : settled.data, { result: "give_back_refused", operation, opened_on: `exception:${exception.id}/${operation}` });

      // A later run (a crash before the job was marked done) finds the recorded outcome: still one exception.
      await s.run(settleIntent(exception.id));
      const again = await db.db.selectFrom("payment_reconciliation_exceptions").select("id").where("provider_object", "=", `exception:${exception.id}/${operation}`).execute();
      t.equal(again.length, 1, "opened once however often the settlement runs");
    }),
  );
}
