/**
 * Spec, Payment service: a capture and a completed refund each post a balanced LedgerTransaction
 * (core/payments/LedgerPostings.ts: sources `payment_intent:<id>:capture` and `refund:<id>`). The
 * database ties the two together too, whoever writes (payments migration 30): an intent or a refund
 * moving to (or inserted as) succeeded whose posting of the same merchant is not in the
 * ledger when the transaction ends is refused — Postgres checks at commit (deferred constraint
 * triggers); SQLite has no deferred triggers and checks when the row moves, so the core posts
 * first. SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";

const at = new Date().toISOString();

const seedMerchants = async (db: Kysely<any>) => {
  for (const id of ["merchant-a", "merchant-b"]) await db.insertInto("payment_merchants").values({ id, name: id, created_at: at }).execute();
};

const captureOf = (db: Kysely<any>, id: string) =>
  db.updateTable("payment_intents").set({ status: "succeeded", amount_captured_minor: 600, amount_capturable_minor: 0, version: 2 }).where("id", "=", id).execute();

t.test("an intent moves to succeeded only with its capture posted, in the database", (t) =>
  forEachDialect(t, "succeeded intent posted", async (t, database) => {
    const db = database.db as Kysely<any>;
    await seedMerchants(db);
    for (const id of ["held-1", "held-2", "held-3"]) {
      await db.insertInto("payment_intents").values(intentRow(id, { capture_method: "manual", status: "requires_capture", amount_captured_minor: 0, amount_capturable_minor: 1000 })).execute();
    }
    await t.rejects(captureOf(db, "held-1"), "succeeded without a posting");
    await t.rejects(
      db.transaction().execute(async (tx) => {
        await captureOf(tx, "held-1");
      }),
      "nor inside a transaction that never posts",
    );
    await insertPosting(db, "payment_intent:held-2:capture", "merchant-b", 600);
    await t.rejects(captureOf(db, "held-2"), "another merchant's posting of that source does not count");
    await insertPosting(db, "payment_intent:held-3:capture", "merchant-a", 600);
    await t.resolves(captureOf(db, "held-3"), "its own posting, committed before");
    // Postgres checks at commit: the posting may follow the move in the same transaction. SQLite checks at the move.
    await db.insertInto("payment_intents").values(intentRow("held-4", { capture_method: "manual", status: "requires_capture", amount_captured_minor: 0, amount_capturable_minor: 1000 })).execute();
    const moveThenPost = db.transaction().execute(async (tx) => {
      await captureOf(tx, "held-4");
      await tx.insertInto("payment_ledger_transactions").values({ id: "late", source: "payment_intent:held-4:capture", merchant_id: "merchant-a", reverses: null, created_at: at }).execute();
      await tx
        .insertInto("payment_ledger_entries")
        .values([600, -600].map((amount, i) => ({ id: `late-${i}`, transaction_id: "late", merchant_id: "merchant-a", account: `merchant:merchant-a:${i === 0 ? "provider_clearing" : "balance"}`, amount_minor: amount, currency: "EUR", created_at: at })))
        .execute();
    });
    if (database.dialect === "postgres") await t.resolves(moveThenPost, "Postgres: posted later in the same transaction");
    else await t.rejects(moveThenPost, "SQLite: the posting comes first");
    const statuses = await db.selectFrom("payment_intents").select(["id", "status"]).orderBy("id").execute();
    t.same(statuses.map((r) => [r.id, r.status]), [
      ["held-1", "requires_capture"],
      ["held-2", "requires_capture"],
      ["held-3", "succeeded"],
      ["held-4", database.dialect === "postgres" ? "succeeded" : "requires_capture"],
    ]);
  }),
);

t.test("a refund moves to succeeded only with its posting, in the database", (t) =>
  forEachDialect(t, "succeeded refund posted", async (t, database) => {
    const db = database.db as Kysely<any>;
    await seedMerchants(db);
    await insertPosting(db, "payment_intent:paid:capture");
    await db.insertInto("payment_intents").values(intentRow("paid")).execute();
    for (const n of [1, 2]) {
      await db
        .insertInto("payment_refunds")
        .values({ id: `refund-${n}`, intent_id: "paid", merchant_id: "merchant-a", amount_minor: 100, currency: "EUR", status: "pending", reference: `re-${n}`, failure_reason: null, request_key: `key-${n}`, created_at: at, updated_at: at })
        .execute();
    }
    const succeed = (id: string) => db.updateTable("payment_refunds").set({ status: "succeeded", updated_at: new Date().toISOString() }).where("id", "=", id).execute();
    await t.rejects(succeed("refund-1"), "succeeded without a posting");
    await insertPosting(db, "refund:refund-2", "merchant-a", 100);
    await t.resolves(succeed("refund-2"), "with its posting");
    const statuses = await db.selectFrom("payment_refunds").select(["id", "status"]).orderBy("id").execute();
    t.same(statuses.map((r) => [r.id, r.status]), [["refund-1", "pending"], ["refund-2", "succeeded"]]);
  }),
);

t.test("an intent or a refund is inserted as succeeded only with its posting, in the database", (t) =>
  forEachDialect(t, "succeeded rows inserted", async (t, database) => {
    const db = database.db as Kysely<any>;
    await seedMerchants(db);
    await t.rejects(db.insertInto("payment_intents").values(intentRow("paid-unposted")).execute(), "an intent inserted succeeded without its posting");
    await insertPosting(db, "payment_intent:paid:capture");
    await t.resolves(db.insertInto("payment_intents").values(intentRow("paid")).execute(), "with its posting");
    const refund = (id: string) =>
      db
        .insertInto("payment_refunds")
        .values({ id, intent_id: "paid", merchant_id: "merchant-a", amount_minor: 100, currency: "EUR", status: "succeeded", reference: `re-${id}`, failure_reason: null, request_key: null, created_at: at, updated_at: at })
        .execute();
    await t.rejects(refund("refund-unposted"), "a refund inserted succeeded without its posting");
    await insertPosting(db, "refund:refund-posted", "merchant-a", 100);
    await t.resolves(refund("refund-posted"), "with its posting");
    t.same((await db.selectFrom("payment_intents").select("id").execute()).map((r) => r.id), ["paid"]);
    t.same((await db.selectFrom("payment_refunds").select("id").execute()).map((r) => r.id), ["refund-posted"]);
  }),
);
