/**
 * Spec, Payment service: "requested amount within captured amount minus completed and pending
 * refunds" (States) and "Refund total is bounded by the captured amount" (Limits), held by the
 * database itself (architecture: invariants are constraints too), whoever writes the refund: a
 * refund that would take the intent's pending and completed refunds above its captured amount is
 * refused; a failed refund no longer counts. On Postgres two transactions racing on parallel
 * connections, neither holding the intent's row lock beforehand, cannot both commit past the bound.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";
import { eventually } from "../worker/fixtures.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";

const at = new Date().toISOString();

const capturedIntentRow = async (db: Kysely<any>, captured: number) => {
  await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
  await insertPosting(db, "payment_intent:intent-a:capture", "merchant-a", captured);
  await db.insertInto("payment_intents").values(intentRow("intent-a", { amount_minor: captured, amount_captured_minor: captured })).execute();
};

const refundRow = (n: number, amount: number, status = "pending") => ({
  id: `refund-${n}`,
  intent_id: "intent-a",
  merchant_id: "merchant-a",
  amount_minor: amount,
  currency: "EUR",
  status,
  reference: `re-${n}`,
  failure_reason: null,
  created_at: at,
  updated_at: at,
});

t.test("refunds within the captured amount minus completed and pending refunds: the database refuses one beyond it", (t) =>
  forEachDialect(t, "refund bound", async (t, database) => {
    const db = database.db as Kysely<any>;
    await capturedIntentRow(db, 1000);
    await db.insertInto("payment_refunds").values(refundRow(1, 600)).execute();
    await insertPosting(db, "refund:refund-2", "merchant-a", 300);
    await db.insertInto("payment_refunds").values(refundRow(2, 300, "succeeded")).execute();
    await t.rejects(db.insertInto("payment_refunds").values(refundRow(3, 101)).execute(), "pending 600 + completed 300 + 101 > 1000 is refused");
    await db.insertInto("payment_refunds").values(refundRow(4, 100)).execute();
    await t.rejects(
      db.updateTable("payment_refunds").set({ amount_minor: 700 }).where("id", "=", "refund-1").execute(),
      "a refund's amount cannot grow past the bound either",
    );
    await db.updateTable("payment_refunds").set({ status: "failed", failure_reason: "declined" }).where("id", "=", "refund-1").execute();
    await db.insertInto("payment_refunds").values(refundRow(5, 600)).execute();
    const rows = await db.selectFrom("payment_refunds").select(["id", "amount_minor", "status"]).orderBy("id").execute();
    t.same(
      rows.map((r) => [r.id, Number(r.amount_minor), r.status]),
      [
        ["refund-1", 600, "failed"],
        ["refund-2", 300, "succeeded"],
        ["refund-4", 100, "pending"],
        ["refund-5", 600, "pending"],
      ],
      "a failed refund no longer counts, so its amount can be refunded again",
    );
  }),
);

t.test("refunds racing past the bound on parallel connections: at most the captured amount commits (Postgres: real connections)", (t) =>
  forEachDialect(t, "refund bound race", async (t, database) => {
    const db = database.db as Kysely<any>;
    await capturedIntentRow(db, 1000);
    let commitFirst: () => void = () => undefined;
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
    let firstInserted: () => void = () => undefined;
    const firstHasInserted = new Promise<void>((resolve) => (firstInserted = resolve));
    // The first transaction inserts 600 and holds its transaction open.
    const first = db.transaction().execute(async (trx) => {
      await trx.insertInto("payment_refunds").values(refundRow(1, 600)).execute();
      firstInserted();
      await firstMayCommit;
    });
    if (database.dialect === "postgres") {
      await firstHasInserted;
      // The second, on another connection, inserts 600 too while the first is still open.
      let secondDone = false;
      const second = db
        .transaction()
        .execute((trx) => trx.insertInto("payment_refunds").values(refundRow(2, 600)).execute())
        .then(
          () => "committed",
          () => "refused",
        )
        .finally(() => (secondDone = true));
      // Either the second finished on its own, or it waits for the first (a lock not granted).
      await eventually(async () => {
        if (secondDone) return true;
        const waiting = await db.selectFrom("pg_locks").select("pid").where("granted", "=", false).execute();
        return waiting.length > 0;
      }, 10_000, "the second refund to finish or wait for a lock");
      commitFirst();
      await first;
      t.equal(await second, "refused", "the second refund is refused once the first has committed");
    } else {
      // SQLite serializes writers: the second transaction runs after the first commits.
      commitFirst();
      await first;
      await t.rejects(db.transaction().execute((trx) => trx.insertInto("payment_refunds").values(refundRow(2, 600)).execute()));
    }
    const rows = await db.selectFrom("payment_refunds").select(["amount_minor"]).execute();
    t.equal(
      rows.reduce((sum, r) => sum + Number(r.amount_minor), 0),
      600,
      "pending and completed refunds never exceed the captured amount",
    );
  }),
);
