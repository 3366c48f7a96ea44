/**
 * Spec, Payment service: refunds are "completed or pending" (States), a refund is an
 * "amount-limited transition of an intent" (Resources), and "commands ... are immutable and
 * audited". The database holds a refund's state machine itself, whoever writes: pending moves to
 * succeeded or failed once; a resolved refund never changes again; what was requested (intent,
 * merchant, amount, currency, provider reference, request key) never changes; a refund is never
 * deleted — SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";

const at = new Date().toISOString();

const seed = async (db: Kysely<any>) => {
  await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
  for (const id of ["intent-a", "intent-b"]) {
    await insertPosting(db, `payment_intent:${id}:capture`);
    await db.insertInto("payment_intents").values(intentRow(id)).execute();
  }
  for (const n of [1, 2, 3]) {
    await db
      .insertInto("payment_refunds")
      .values({ id: `refund-${n}`, intent_id: "intent-a", merchant_id: "merchant-a", amount_minor: 100, currency: "EUR", status: "pending", reference: `re-${n}`, failure_reason: null, request_key: `key-${n}`, created_at: at, updated_at: at })
      .execute();
  }
};

t.test("a refund moves pending to succeeded or failed once, and a resolved refund never changes again", (t) =>
  forEachDialect(t, "refund states", async (t, database) => {
    const db = database.db as Kysely<any>;
    await seed(db);
    const setStatus = (id: string, status: string, failure: string | null = null) =>
      db.updateTable("payment_refunds").set({ status, failure_reason: failure, updated_at: new Date().toISOString() }).where("id", "=", id).execute();
    // Their postings exist (migration 30), so only the state machine decides here.
    for (const id of ["refund-1", "refund-2"]) await insertPosting(db, `refund:${id}`, "merchant-a", 100);
    await setStatus("refund-1", "succeeded");
    await setStatus("refund-2", "failed", "declined");
    await t.rejects(setStatus("refund-1", "pending"), "succeeded does not go back to pending");
    await t.rejects(setStatus("refund-1", "failed", "late"), "succeeded does not become failed");
    await t.rejects(setStatus("refund-2", "succeeded"), "failed does not become succeeded");
    await t.rejects(setStatus("refund-2", "pending"), "failed does not go back to pending");
    await t.rejects(setStatus("refund-2", "failed", "another reason"), "a failed refund's reason is kept");
    for (const [column, value] of [
      ["amount_minor", 50],
      ["currency", "USD"],
      ["reference", "re-other"],
      ["request_key", "key-other"],
      ["intent_id", "intent-b"],
    ] as const) {
      await t.rejects(db.updateTable("payment_refunds").set({ [column]: value }).where("id", "=", "refund-3").execute(), `a refund's ${column} never changes`);
    }
    await t.rejects(db.deleteFrom("payment_refunds").where("id", "=", "refund-1").execute(), "a refund is never deleted");
    const rows = await db.selectFrom("payment_refunds").select(["id", "status", "amount_minor", "currency", "reference"]).orderBy("id").execute();
    t.same(
      rows.map((r) => [r.id, r.status, Number(r.amount_minor), r.currency, r.reference]),
      [
        ["refund-1", "succeeded", 100, "EUR", "re-1"],
        ["refund-2", "failed", 100, "EUR", "re-2"],
        ["refund-3", "pending", 100, "EUR", "re-3"],
      ],
    );
  }),
);
