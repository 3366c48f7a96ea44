/**
 * The ledger's balance is a database rule too (spec: a LedgerTransaction "has at least two entries
 * that sum to zero per currency"): on Postgres a posting whose entries do not balance, or that has
 * fewer than two entries, cannot commit, whoever writes it. (SQLite cannot defer a check to commit:
 * there the kernel Ledger's validation before every posting holds both rules, docs/decisions.md.)
 */
import { sql } from "kysely";
import t from "tap";
import { openTestDatabase } from "../support/databases.js";

const posting = async (db: Awaited<ReturnType<typeof openTestDatabase>>, id: string, amounts: ReadonlyArray<readonly [number, string]>) =>
  db.db.transaction().execute(async (tx) => {
    const at = new Date();
    await tx.insertInto("payment_ledger_transactions").values({ id, source: `source-${id}`, merchant_id: "m1", reverses: null, created_at: at }).execute();
    await tx
      .insertInto("payment_ledger_entries")
      .values(amounts.map(([amount, currency], i) => ({ id: `${id}-${i}`, transaction_id: id, merchant_id: "m1", account: `merchant:m1:acct-${i}`, amount_minor: amount, currency, created_at: at })))
      .execute();
  });

t.test("Postgres refuses to commit a ledger transaction whose entries do not balance per currency", async (t) => {
  const db = await openTestDatabase("postgres", t);
  await posting(db, "balanced", [[500, "EUR"], [-500, "EUR"], [70, "USD"], [-70, "USD"]]);
  await t.rejects(posting(db, "unbalanced", [[500, "EUR"], [-400, "EUR"]]), /does not balance/);
  await t.rejects(posting(db, "cross-currency", [[500, "EUR"], [-500, "USD"]]), /does not balance/, "each currency balances on its own");
  const stored = await sql<{ id: string }>`SELECT id FROM payment_ledger_transactions ORDER BY id`.execute(db.db);
  t.same(stored.rows.map((r) => r.id), ["balanced"], "nothing of a refused posting is stored");
});

t.test("Postgres refuses to commit a ledger transaction with fewer than two entries", async (t) => {
  const db = await openTestDatabase("postgres", t);
  const envelope = (id: string) =>
    db.db.transaction().execute(async (tx) => {
      await tx.insertInto("payment_ledger_transactions").values({ id, source: `source-${id}`, merchant_id: "m1", reverses: null, created_at: new Date() }).execute();
    });
  await t.rejects(envelope("empty"), /at least two entries/, "an envelope without entries");
  await posting(db, "two", [[300, "EUR"], [-300, "EUR"]]);
  const stored = await sql<{ id: string }>`SELECT id FROM payment_ledger_transactions ORDER BY id`.execute(db.db);
  t.same(stored.rows.map((r) => r.id), ["two"], "the empty envelope was not kept, so its source is still free");
  await posting(db, "empty", [[1, "EUR"], [-1, "EUR"]]);
  t.equal((await sql<{ n: string }>`SELECT count(*) AS n FROM payment_ledger_entries`.execute(db.db)).rows[0]?.n, "4");
});
