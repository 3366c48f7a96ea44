/**
 * Spec, Payment service: "Every mutation has ... state preconditions", an intent's webhook applies
 * only when the "transition is legal and monotonic", and succeeded and canceled are terminal
 * (core/payments/IntentStatus.ts, the one transition table). The database holds the same table,
 * whoever writes: a status change that is not an edge of the table is refused; what the merchant
 * asked for (amount, currency, capture method) never changes; a captured amount, once the intent
 * has succeeded, never changes and the refunded amount never shrinks; an intent is never deleted
 * — SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { transitionTable } from "../../core/payments/IntentStatus.js";
import { intentStatuses } from "../../core/payments/model/PaymentIntent.js";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";

const at = new Date().toISOString();

const manualIntent = (id: string, status: string, captured = 0) =>
  intentRow(id, { capture_method: "manual", status, amount_captured_minor: captured, provider_payment_id: null });

/** Every (from, to) status change the transition table allows. */
const edges = new Set(
  Object.entries(transitionTable).flatMap(([from, triggers]) =>
    Object.values(triggers).filter((to) => to !== from).map((to) => `${from}->${to}`),
  ),
);

t.test("an intent's status moves only along the transition table, and succeeded and canceled never change", (t) =>
  forEachDialect(t, "intent transitions", async (t, database) => {
    const db = database.db as Kysely<any>;
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
    let n = 0;
    for (const from of intentStatuses) {
      for (const to of intentStatuses) {
        if (from === to) continue;
        const id = `intent-${++n}`;
        // A succeeded intent has its posting (migration 30), so only the edge decides here.
        if (from === "succeeded" || to === "succeeded") await insertPosting(db, `payment_intent:${id}:capture`);
        await db.insertInto("payment_intents").values(manualIntent(id, from, from === "succeeded" ? 1000 : 0)).execute();
        // A move to succeeded captures something (migration 25).
        const captured = to === "succeeded" ? { amount_captured_minor: 1000 } : {};
        const move = db.updateTable("payment_intents").set({ status: to, version: 2, ...captured }).where("id", "=", id).execute();
        if (edges.has(`${from}->${to}`)) {
          await t.resolves(move, `${from} -> ${to} is an edge of the table`);
        } else {
          await t.rejects(move, `${from} -> ${to} is refused`);
        }
      }
    }
    const moved = await db.selectFrom("payment_intents").select(["status"]).execute();
    t.equal(moved.length, n);
  }),
);

t.test("an intent's requested amount, currency and capture method never change, nor its captured amount once succeeded", (t) =>
  forEachDialect(t, "intent fixed fields", async (t, database) => {
    const db = database.db as Kysely<any>;
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
    await db.insertInto("payment_intents").values(manualIntent("held", "requires_capture")).execute();
    await insertPosting(db, "payment_intent:paid:capture", "merchant-a", 800);
    await db.insertInto("payment_intents").values({ ...manualIntent("paid", "succeeded", 800), amount_refunded_minor: 300 }).execute();
    for (const [column, value] of [
      ["amount_minor", 2000],
      ["currency", "USD"],
      ["capture_method", "automatic"],
    ] as const) {
      await t.rejects(db.updateTable("payment_intents").set({ [column]: value }).where("id", "=", "held").execute(), `${column} never changes`);
    }
    await t.rejects(db.updateTable("payment_intents").set({ amount_captured_minor: 900 }).where("id", "=", "paid").execute(), "a succeeded intent's captured amount never changes");
    await t.rejects(db.updateTable("payment_intents").set({ amount_refunded_minor: 200 }).where("id", "=", "paid").execute(), "the refunded amount never shrinks");
    await db.updateTable("payment_intents").set({ amount_refunded_minor: 500, version: 2 }).where("id", "=", "paid").execute();
    await insertPosting(db, "payment_intent:held:capture", "merchant-a", 600);
    await db.updateTable("payment_intents").set({ status: "succeeded", amount_captured_minor: 600, amount_capturable_minor: 0, version: 2 }).where("id", "=", "held").execute();
    await t.rejects(db.deleteFrom("payment_intents").where("id", "=", "held").execute(), "an intent is never deleted");
    const rows = await db.selectFrom("payment_intents").select(["id", "status", "amount_captured_minor", "amount_refunded_minor"]).orderBy("id").execute();
    t.same(
      rows.map((r) => [r.id, r.status, Number(r.amount_captured_minor), Number(r.amount_refunded_minor)]),
      [
        ["held", "succeeded", 600, 0],
        ["paid", "succeeded", 800, 500],
      ],
      "a capture and a refund are recorded as the commands record them",
    );
  }),
);
