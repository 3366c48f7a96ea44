/**
 * Spec, Payment service: ledger postings are per merchant ("merchant isolation on every query and
 * command"); a LedgerTransaction's entries move money between one merchant's accounts
 * (core/payments/LedgerPostings.ts: `merchant:<id>:provider_clearing` and `merchant:<id>:balance`).
 * The database holds it too, whoever writes (payments migration 29): an entry whose account is not
 * one of its own merchant's (`merchant:<its merchant>:<name>`) is refused. SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";

const at = new Date().toISOString();

/** Posts a balanced transaction of merchant `merchantId` whose two entries name `accounts` (one database transaction). */
const posting = (db: Kysely<any>, id: string, merchantId: string, accounts: readonly [string, string]) =>
  db.transaction().execute(async (tx) => {
    await tx.insertInto("payment_ledger_transactions").values({ id, source: `source-${id}`, merchant_id: merchantId, reverses: null, created_at: at }).execute();
    await tx
      .insertInto("payment_ledger_entries")
      .values(accounts.map((account, i) => ({ id: `${id}-${i}`, transaction_id: id, merchant_id: merchantId, account, amount_minor: i === 0 ? 250 : -250, currency: "EUR", created_at: at })))
      .execute();
  });

t.test("a ledger entry names only an account of its own merchant, in the database", (t) =>
  forEachDialect(t, "ledger accounts of the entry's merchant", async (t, database) => {
    const db = database.db as Kysely<any>;
    for (const merchant of ["merchant-a", "merchant-b", "merchant_a"]) {
      await db.insertInto("payment_merchants").values({ id: merchant, name: merchant, created_at: at }).execute();
    }
    await t.resolves(posting(db, "own", "merchant-a", ["merchant:merchant-a:provider_clearing", "merchant:merchant-a:balance"]), "its own accounts");
    await t.rejects(posting(db, "forged", "merchant-a", ["merchant:merchant-a:provider_clearing", "merchant:merchant-b:balance"]), /account of its own merchant/, "another merchant's balance");
    await t.rejects(posting(db, "longer", "merchant-a", ["merchant:merchant-a:provider_clearing", "merchant:merchant-a-b:balance"]), /account of its own merchant/, "a merchant id that only begins with its own");
    await t.rejects(posting(db, "pattern", "merchant_a", ["merchant:merchant_a:provider_clearing", "merchant:merchantXa:balance"]), /account of its own merchant/, "no pattern characters in a merchant id");
    await t.rejects(posting(db, "unprefixed", "merchant-a", ["provider_clearing", "merchant:merchant-a:balance"]), /account of its own merchant/, "an account of nobody");
    await t.rejects(posting(db, "bare", "merchant-a", ["merchant:merchant-a:", "merchant:merchant-a:balance"]), /account of its own merchant/, "a prefix without a name");
    const stored = await db.selectFrom("payment_ledger_entries").select("transaction_id").execute();
    t.same([...new Set(stored.map((r) => r.transaction_id))], ["own"], "nothing of a refused posting is stored");
  }),
);
