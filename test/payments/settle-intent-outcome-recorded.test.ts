/**
 * Spec, Payment service: every step of a reconciliation exception appends an immutable outcome with
 * its actor and reason. The settlement of a `settle_intent` exception is one: a `settled` outcome
 * (once per exception, with what was done and, for a capture, its ledger posting), shown with the
 * exception's outcomes over HTTP. The outcome log stays append-only after payments migration 31
 * rebuilt it (SQLite). SQLite and Postgres.
 */
import t from "tap";
import { getReconciliationException, resolveReconciliationException } from "../../core/payments/ReconciliationExceptions.js";
import { settleIntent } from "../../core/payments/SettleIntent.js";
import { forEachDialect } from "../support/databases.js";
import { exceptionAbout, misholding, runSettleJobs } from "./settleIntentFixtures.js";
import { paymentsRuntime } from "./support.js";

t.test("a settled exception records a settled outcome with the settlement's actor, reason and result", (t) =>
  forEachDialect(t, "settle: outcome", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(500));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "manual");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "held 15.00 for 10.00"));
    await runSettleJobs(s);
    const { outcomes } = await s.run(getReconciliationException(merchant, exception.id));
    t.same(outcomes.map((o) => o.action), ["opened", "resolved", "settled"]);
    t.match(outcomes[2], { actor: "system:reconciliation", reason: new RegExp(exception.id), ledgerSource: null });
    const row = await db.db.selectFrom("payment_reconciliation_outcomes").select(["data", "merchant_id"]).where("exception_id", "=", exception.id).where("action", "=", "settled").executeTakeFirstOrThrow();
    t.match(typeof row.data === "string" ? JSON.parse(row.data) : row.data, { result: "released", cause: "voided", intent_id: intent.id, status: "requires_payment_method" });
    t.equal(row.merchant_id, merchant.merchantId);

    await s.run(settleIntent(exception.id));
    t.equal((await s.run(getReconciliationException(merchant, exception.id))).outcomes.length, 3, "a later run records nothing more");
  }),
);

t.test("a settlement that captures records its ledger posting as the settled outcome's source", (t) =>
  forEachDialect(t, "settle: outcome with posting", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(-400));
    const { merchant, intent, exception } = await exceptionAbout(t, s, db, "automatic");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "captured 6.00 of 10.00"));
    await runSettleJobs(s);
    const { outcomes } = await s.run(getReconciliationException(merchant, exception.id));
    t.match(outcomes.at(-1), { action: "settled", ledgerSource: `payment_intent:${intent.id}:capture` });
  }),
);

t.test("the outcome log stays append-only and one settled outcome per exception after its rebuild", (t) =>
  forEachDialect(t, "settle: outcome log", async (t, db) => {
    const s = paymentsRuntime(t, db, misholding(500));
    const { merchant, exception } = await exceptionAbout(t, s, db, "manual");
    await s.run(resolveReconciliationException(merchant, exception.id, { kind: "settle_intent" }, "held 15.00 for 10.00"));
    await runSettleJobs(s);
    const settled = await db.db.selectFrom("payment_reconciliation_outcomes").selectAll().where("exception_id", "=", exception.id).where("action", "=", "settled").executeTakeFirstOrThrow();
    await t.rejects(db.db.updateTable("payment_reconciliation_outcomes").set({ reason: "edited" }).where("id", "=", settled.id).execute(), "an outcome is never edited");
    await t.rejects(db.db.deleteFrom("payment_reconciliation_outcomes").where("id", "=", settled.id).execute(), "an outcome is never deleted");
    await t.rejects(db.db.insertInto("payment_reconciliation_outcomes").values({ ...settled, id: `${String(settled.id)}-2` }).execute(), "one settled outcome per exception");
    await t.rejects(db.db.insertInto("payment_reconciliation_outcomes").values({ ...settled, id: `${String(settled.id)}-3`, action: "guessed" }).execute(), "an unknown action is refused");
    t.equal((await db.db.selectFrom("payment_reconciliation_outcomes").select("id").where("exception_id", "=", exception.id).execute()).length, 3);

    const open = await exceptionAbout(t, s, db, "manual");
    await t.rejects(
      db.db.insertInto("payment_reconciliation_outcomes").values({ ...settled, id: `${String(settled.id)}-4`, exception_id: open.exception.id }).execute(),
      /settle_intent/,
      "a settled outcome of an exception not resolved with settle_intent is refused",
    );
  }),
);
