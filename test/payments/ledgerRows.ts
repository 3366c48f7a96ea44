/**
 * A balanced ledger posting written straight to the tables, for tests that write payment rows
 * directly to prove what the database itself refuses: transaction `source` of `merchantId` with two
 * entries of `amountMinor` between the merchant's own accounts (migration 29), in one database
 * transaction (Postgres checks an envelope's entries at commit, migration 20).
 */
import type { Kysely } from "kysely";

export const insertPosting = (db: Kysely<any>, source: string, merchantId = "merchant-a", amountMinor = 1000, currency = "EUR") => {
  const at = new Date().toISOString();
  const id = `ltx-${source}`;
  return db.transaction().execute(async (tx) => {
    await tx.insertInto("payment_ledger_transactions").values({ id, source, merchant_id: merchantId, reverses: null, created_at: at }).execute();
    await tx
      .insertInto("payment_ledger_entries")
      .values(
        [`merchant:${merchantId}:provider_clearing`, `merchant:${merchantId}:balance`].map((account, i) => ({
          id: `${id}-${i}`,
          transaction_id: id,
          merchant_id: merchantId,
          account,
          amount_minor: i === 0 ? amountMinor : -amountMinor,
          currency,
          created_at: at,
        })),
      )
      .execute();
  });
};
