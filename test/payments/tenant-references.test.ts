/**
 * Spec (architecture.md, Storage): "Every tenant-owned row carries [the tenant key], and composite
 * foreign keys include it, so a cross-tenant reference cannot be stored." An attempt, refund,
 * client secret or dispute of merchant B against merchant A's intent, and a ledger entry of B in
 * A's ledger transaction, are refused by the database itself (whoever writes them), while the
 * same rows of merchant A are accepted — SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";

t.test("the database refuses rows that point at another merchant's intent or ledger transaction", (t) =>
  forEachDialect(t, "cross-merchant references", async (t, database) => {
    const db = database.db as Kysely<any>;
    const at = new Date().toISOString();
    for (const id of ["merchant-a", "merchant-b"]) await db.insertInto("payment_merchants").values({ id, name: id, created_at: at }).execute();
    // An envelope commits with its (balanced) entries on Postgres (payments migration 20), before the
    // succeeded intent it posts (migration 30).
    await db.transaction().execute(async (tx) => {
      await tx.insertInto("payment_ledger_transactions").values({ id: "txn-a", source: "payment_intent:intent-a:capture", merchant_id: "merchant-a", reverses: null, created_at: at }).execute();
      await tx
        .insertInto("payment_ledger_entries")
        .values([1000, -1000].map((amount, i) => ({ id: `entry-0-${i}`, transaction_id: "txn-a", merchant_id: "merchant-a", account: `merchant:merchant-a:account-${i}`, amount_minor: amount, currency: "EUR", created_at: at })))
        .execute();
    });
    await db.insertInto("payment_intents").values(intentRow("intent-a")).execute();

    const rows = (merchant: string, n: number) => ({
      attempt: () =>
        db.insertInto("payment_attempts").values({ id: `attempt-${n}`, intent_id: "intent-a", merchant_id: merchant, number: n, reference: `ref-${n}`, payment_method: "pm_card_visa", status: "captured", provider_payment_id: null, decline_code: null, created_at: at, updated_at: at }).execute(),
      refund: () =>
        db.insertInto("payment_refunds").values({ id: `refund-${n}`, intent_id: "intent-a", merchant_id: merchant, amount_minor: 100, currency: "EUR", status: "pending", reference: `re-${n}`, failure_reason: null, created_at: at, updated_at: at }).execute(),
      dispute: () =>
        db.insertInto("payment_disputes").values({ id: `dispute-${n}`, provider_dispute_id: `dp-${n}`, merchant_id: merchant, payment_intent_id: "intent-a", amount_minor: 100, currency: "EUR", reason: "fraudulent", status: "needs_response", last_event_ms: 1, last_event_id: `evt-${n}`, created_at: at, updated_at: at }).execute(),
      ledger_entry: () =>
        // A balanced pair, so that Postgres's balance check at commit is not what refuses it.
        db
          .insertInto("payment_ledger_entries")
          .values([100, -100].map((amount, i) => ({ id: `entry-${n}-${i}`, transaction_id: "txn-a", merchant_id: merchant, account: `merchant:${merchant}:account-${i}`, amount_minor: amount, currency: "EUR", created_at: at })))
          .execute(),
      client_secret: () =>
        db.insertInto("payment_client_secrets").values({ intent_id: "intent-a", merchant_id: merchant, secret_hash: String(n).repeat(64).slice(0, 64), created_at: at }).execute(),
    });
    const foreign = rows("merchant-b", 2);
    for (const [name, insert] of Object.entries(foreign)) {
      await t.rejects(insert(), `a ${name} of merchant B against merchant A's row is refused`);
    }
    // The same rows of merchant A are accepted.
    const own = rows("merchant-a", 1);
    await own.ledger_entry();
    t.equal((await db.selectFrom("payment_ledger_entries").select("id").execute()).length, 4, "the own balanced entries are stored");
    await own.attempt();
    await own.refund();
    await own.dispute();
    await own.client_secret();
    t.equal((await db.selectFrom("payment_refunds").select("id").execute()).length, 1, "the own refund is stored");
    t.equal((await db.selectFrom("payment_attempts").select("id").execute()).length, 1);
    // A row cannot be moved to another merchant afterwards either.
    await t.rejects(db.updateTable("payment_refunds").set({ merchant_id: "merchant-b" }).where("id", "=", "refund-1").execute(), "a refund is not moved to merchant B");
    await t.rejects(db.updateTable("payment_intents").set({ merchant_id: "merchant-b" }).where("id", "=", "intent-a").execute(), "an intent with rows is not moved to merchant B");
  }),
);
