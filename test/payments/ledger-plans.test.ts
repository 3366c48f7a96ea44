/**
 * Ledger entries are read by their transaction (payments migration 8): the Postgres balance check
 * of every posting (migration 7's deferred trigger, once per entry at commit) and
 * reconciliation's `findLedgerTransaction`. Without the index each read scanned the whole ledger,
 * so a payment's commit cost grew with the number of entries ever posted.
 */
import { Effect } from "effect";
import { CompiledQuery, sql } from "kysely";
import t from "tap";
import { makeSqlReconciliationRepository } from "../../adapters/sql/payments/SqlReconciliationRepository.js";
import { openTestDatabase } from "../support/databases.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";

const transactions = 20_000;

t.test("Postgres: the balance check of a posting finds the transaction's entries by index, never by scanning the ledger", async (t) => {
  const db = await openTestDatabase("postgres", t);
  // Seeded without the per-row check (it is what is being examined), then re-enabled; the envelopes
  // are checked at commit for their entries (migration 20), so both go in one transaction.
  await sql`ALTER TABLE payment_ledger_entries DISABLE TRIGGER payment_ledger_balanced`.execute(db.db);
  await db.db.transaction().execute(async (tx) => {
    await sql`
      INSERT INTO payment_ledger_transactions (id, source, merchant_id, reverses, created_at)
      SELECT 'tx-' || i, 'source-' || i, 'm1', NULL, now() FROM generate_series(1, ${transactions}) AS i`.execute(tx);
    await sql`
      INSERT INTO payment_ledger_entries (id, transaction_id, merchant_id, account, amount_minor, currency, created_at)
      SELECT 'e-' || i || '-' || side, 'tx-' || i, 'm1', 'merchant:m1:acct-' || side, CASE side WHEN 1 THEN 500 ELSE -500 END, 'EUR', now()
      FROM generate_series(1, ${transactions}) AS i, generate_series(1, 2) AS side`.execute(tx);
  });
  await sql`ALTER TABLE payment_ledger_entries ENABLE TRIGGER payment_ledger_balanced`.execute(db.db);
  await sql`ANALYZE payment_ledger_entries`.execute(db.db);

  // The check's own query, read from the installed trigger function, with one posting's values.
  const { rows: source } = await sql<{ prosrc: string }>`SELECT prosrc FROM pg_proc WHERE proname = 'payment_ledger_balanced'`.execute(db.db);
  const check = /SELECT sum\(amount_minor\) FROM payment_ledger_entries\s+WHERE transaction_id = NEW\.transaction_id AND currency = NEW\.currency/.exec(source[0]?.prosrc ?? "");
  t.ok(check, "the trigger function reads the posting's entries by transaction and currency");
  const query = check![0].replace("NEW.transaction_id", "'tx-4242'").replace("NEW.currency", "'EUR'");
  const { rows } = await db.db.executeQuery<{ "QUERY PLAN": unknown }>(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query}`));
  const plan = JSON.stringify(rows[0]?.["QUERY PLAN"]);
  t.match(plan, /"Index Name":"payment_ledger_entries_transaction"/, `uses the index: ${plan}`);
  t.notMatch(plan, /"Node Type":"Seq Scan"/, "no sequential scan of the ledger");

  // And a posting still commits when it balances.
  await db.db.transaction().execute(async (tx) => {
    await tx.insertInto("payment_ledger_transactions").values({ id: "tx-new", source: "source-new", merchant_id: "m1", reverses: null, created_at: new Date() }).execute();
    await tx
      .insertInto("payment_ledger_entries")
      .values([1, -1].map((sign, i) => ({ id: `tx-new-${i}`, transaction_id: "tx-new", merchant_id: "m1", account: `merchant:m1:acct-${i}`, amount_minor: 700 * sign, currency: "EUR", created_at: new Date() })))
      .execute();
  });
  const { rows: posted } = await sql<{ n: string }>`SELECT count(*) AS n FROM payment_ledger_entries WHERE transaction_id = 'tx-new'`.execute(db.db);
  t.equal(Number(posted[0]?.n), 2);
});

t.test("SQLite: reconciliation reads a ledger transaction's entries by index", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const at = new Date().toISOString();
  await db.db.insertInto("payment_ledger_transactions").values({ id: "tx-1", source: "source-1", merchant_id: "m1", reverses: null, created_at: at }).execute();
  await db.db
    .insertInto("payment_ledger_entries")
    .values([500, -500].map((amount, i) => ({ id: `e-${i}`, transaction_id: "tx-1", merchant_id: "m1", account: `merchant:m1:acct-${i}`, amount_minor: amount, currency: "EUR", created_at: at })))
    .execute();
  const repository = makeSqlReconciliationRepository(db);
  const { executed } = await capturePrepared(
    (text) => text.includes('from "payment_ledger_entries"'),
    async () => {
      const found = await Effect.runPromise(repository.findLedgerTransaction("source-1"));
      t.same(found?.transaction.entries.map((e) => e.amount_minor), [500, -500], "the entries, in id order");
    },
  );
  t.equal(executed.size, 1, "one read of the entries");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH payment_ledger_entries USING INDEX payment_ledger_entries_transaction \(transaction_id=\?\)/.test(detail)),
      `seeks the transaction's entries: ${details.join(" | ")}`,
    );
  }
});
