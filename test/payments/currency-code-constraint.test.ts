/**
 * Spec, Payment service, Resources rule 1: "Money is integer minor units plus an ISO currency
 * code." The core accepts only ISO 4217 codes (core/kernel/Money.ts); the database holds the form
 * too, whoever writes (payments migration 27): an intent, a refund or a ledger entry whose
 * currency is not three capital letters is refused, and a refund is in its intent's currency.
 * SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";

const at = new Date().toISOString();
const notCodes = ["eur", "Eur", "E1R", "€UR", "EU "];

t.test("money is stored with an ISO currency code: intents, refunds and ledger entries in any other form are refused, and a refund is in its intent's currency", (t) =>
  forEachDialect(t, "currency codes", async (t, database) => {
    const db = database.db as Kysely<any>;
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: at }).execute();
    await insertPosting(db, "payment_intent:intent-a:capture", "merchant-a");
    await db.insertInto("payment_intents").values(intentRow("intent-a")).execute();
    for (const [n, currency] of notCodes.entries()) {
      await t.rejects(db.insertInto("payment_intents").values(intentRow(`intent-${n}`, { currency })).execute(), `an intent in ${JSON.stringify(currency)}`);
      await t.rejects(
        db
          .insertInto("payment_refunds")
          .values({ id: `refund-${n}`, intent_id: "intent-a", merchant_id: "merchant-a", amount_minor: 10, currency, status: "pending", reference: `re-${n}`, failure_reason: null, created_at: at, updated_at: at })
          .execute(),
        `a refund in ${JSON.stringify(currency)}`,
      );
      await t.rejects(
        db.transaction().execute(async (tx) => {
          await tx.insertInto("payment_ledger_transactions").values({ id: `txn-${n}`, source: `source-${n}`, merchant_id: "merchant-a", reverses: null, created_at: at }).execute();
          await tx
            .insertInto("payment_ledger_entries")
            .values([10, -10].map((amount, i) => ({ id: `entry-${n}-${i}`, transaction_id: `txn-${n}`, merchant_id: "merchant-a", account: `merchant:merchant-a:account-${i}`, amount_minor: amount, currency, created_at: at })))
            .execute();
        }),
        `ledger entries in ${JSON.stringify(currency)}`,
      );
    }
    await t.rejects(
      db
        .insertInto("payment_refunds")
        .values({ id: "refund-usd", intent_id: "intent-a", merchant_id: "merchant-a", amount_minor: 10, currency: "USD", status: "pending", reference: "re-usd", failure_reason: null, created_at: at, updated_at: at })
        .execute(),
      "a refund in another currency than its intent's",
    );
    await db
      .insertInto("payment_refunds")
      .values({ id: "refund-ok", intent_id: "intent-a", merchant_id: "merchant-a", amount_minor: 10, currency: "EUR", status: "pending", reference: "re-ok", failure_reason: null, created_at: at, updated_at: at })
      .execute();
    t.equal((await db.selectFrom("payment_intents").select("id").execute()).length, 1, "only the intent in EUR is stored");
    t.equal((await db.selectFrom("payment_refunds").select("id").execute()).length, 1, "only the refund in EUR is stored");
    t.equal((await db.selectFrom("payment_ledger_entries").where("currency", "<>", "EUR").select("id").execute()).length, 0, "no entry in another form is stored");
  }),
);
