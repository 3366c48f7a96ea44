/**
 * The ledger (spec rule 6): every posting balances per currency; the database itself refuses
 * UPDATE and DELETE of ledger entries, ledger transactions and audit records; a unique ledger
 * source makes double posting impossible; and after random operations with provider faults
 * the sum of all balances per currency is zero and the merchant's clearing balance equals what
 * was captured minus what was refunded — on SQLite and Postgres.
 */
import fc from "fast-check";
import t from "tap";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { clearingAccount, postLedger } from "../../core/payments/LedgerPostings.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachDialect } from "../support/databases.js";
import { operationsArbitrary, runOperations } from "./randomOperations.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const paidIntent = async (t: Parameters<typeof paymentsRuntime>[0], db: SqlDatabase) => {
  const runtime = paymentsRuntime(t, db);
  const merchant = await newMerchant(runtime.run);
  const intent = await runtime.run(createIntent(merchant, { amountMinor: 1200, currency: "EUR" }));
  await runtime.run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  return { ...runtime, merchant, intent };
};

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, query: () => Promise<unknown>) => {
  const outcome = await query().then(
    () => "accepted",
    (error: unknown) => String(error),
  );
  t.ok(/append-only/.test(outcome), `${what} is refused by the database (${outcome.slice(0, 80)})`);
};

t.test("the database refuses UPDATE and DELETE of ledger entries, ledger transactions and audit records", (t) =>
  forEachDialect(t, "append-only", async (t, db) => {
    await paidIntent(t, db);
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2);
    await refused(t, "UPDATE of an entry", () => db.db.updateTable("payment_ledger_entries").set({ amount_minor: 1 }).execute());
    await refused(t, "DELETE of an entry", () => db.db.deleteFrom("payment_ledger_entries").execute());
    await refused(t, "UPDATE of a transaction", () => db.db.updateTable("payment_ledger_transactions").set({ source: "x" }).execute());
    await refused(t, "DELETE of a transaction", () => db.db.deleteFrom("payment_ledger_transactions").execute());
    await refused(t, "UPDATE of an audit record", () => db.db.updateTable("payment_audit_log").set({ reason: "rewritten" }).execute());
    await refused(t, "DELETE of an audit record", () => db.db.deleteFrom("payment_audit_log").execute());
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2, "history is unchanged");
  }),
);

t.test("a unique ledger source prevents posting the same business event twice", (t) =>
  forEachDialect(t, "unique ledger source", async (t, db) => {
    const { attempt, merchant, intent } = await paidIntent(t, db);
    const source = `payment_intent:${intent.id}:capture`;
    const again = await attempt(
      postLedger(merchant.merchantId, {
        source,
        entries: [
          { account: clearingAccount(merchant.merchantId), amount_minor: 1200, currency: "EUR" },
          { account: `merchant:${merchant.merchantId}:balance`, amount_minor: -1200, currency: "EUR" },
        ],
      }),
    );
    t.match(again, { ok: false, error: { _tag: "DuplicateLedgerSource", code: "duplicate_ledger_source" } });
    const raw = await db.db
      .insertInto("payment_ledger_transactions")
      .values({ id: "raw-duplicate", source, merchant_id: merchant.merchantId, reverses: null, created_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date() })
      .execute()
      .then(
        () => "accepted",
        () => "refused",
      );
    t.equal(raw, "refused", "the UNIQUE constraint refuses a raw duplicate too");
    const unbalanced = await attempt(
      postLedger(merchant.merchantId, {
        source: "manual:1",
        entries: [
          { account: "a", amount_minor: 5, currency: "EUR" },
          { account: "b", amount_minor: -4, currency: "EUR" },
        ],
      }),
    );
    t.match(unbalanced, { ok: false, error: { code: "unbalanced_transaction" } }, "an unbalanced posting never reaches storage");
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 2);
  }),
);

const sumsByCurrency = async (db: SqlDatabase): Promise<Map<string, bigint>> => {
  const rows = await db.db.selectFrom("payment_ledger_entries").select(["currency", "amount_minor"]).execute();
  const sums = new Map<string, bigint>();
  for (const row of rows) sums.set(String(row.currency), (sums.get(String(row.currency)) ?? 0n) + BigInt(row.amount_minor as number | string));
  return sums;
};

t.test("after random operations and provider faults every currency sums to zero and clearing matches captured minus refunded", (t) =>
  forEachDialect(t, "ledger property", async (t, db) => {
    const runtime = paymentsRuntime(t, db);
    const problems: string[] = [];
    let postings = 0;
    await fc.assert(
      fc.asyncProperty(operationsArbitrary, async (operations) => {
        const merchant = await newMerchant(runtime.run);
        const latest = new Map<string, { currency: string; captured: number; refunded: number }>();
        await runOperations(runtime, merchant, operations, async ({ after }) => {
          latest.set(after.id, { currency: after.currency, captured: after.amountCapturedMinor, refunded: after.amountRefundedMinor });
          for (const [currency, total] of await sumsByCurrency(db)) if (total !== 0n) problems.push(`${currency} sums to ${total}`);
        });
        const clearing = await db.db
          .selectFrom("payment_ledger_entries")
          .select(["currency", "amount_minor"])
          .where("account", "=", clearingAccount(merchant.merchantId))
          .execute();
        postings += clearing.length;
        for (const currency of ["EUR", "USD", "JPY"]) {
          const ledger = clearing.filter((r) => r.currency === currency).reduce((s, r) => s + Number(r.amount_minor), 0);
          const expected = [...latest.values()].filter((i) => i.currency === currency).reduce((s, i) => s + i.captured - i.refunded, 0);
          if (ledger !== expected) problems.push(`${currency}: clearing ${ledger} but intents say ${expected}`);
        }
        return problems.length === 0;
      }),
      {
        numRuns: db.dialect === "sqlite" ? 25 : 10,
        // One known capture always runs, so the clearing comparison is never vacuous.
        examples: [[[{ kind: "create", amount: 1_000, currency: "EUR", manual: false }, { kind: "confirm", target: 0, token: sandboxTokens.visa }]]],
      },
    );
    t.same(problems, []);
    t.ok(postings > 0, `the sequences posted ${postings} clearing entries`);
  }),
);

t.test("every command is recorded in the audit log with its actor and reason", (t) =>
  forEachDialect(t, "audit trail", async (t, db) => {
    const { run, merchant, intent } = await paidIntent(t, db);
    await run(createRefund(merchant, { intentId: intent.id, amountMinor: 200 }));
    const log = await db.db.selectFrom("payment_audit_log").select(["action", "actor", "reason", "subject_id"]).orderBy("id").execute();
    t.same(
      log.map((r) => r.action),
      ["merchant.created", "payment_intent.created", "payment_intent.confirm_started", "payment_intent.attempt_resolved", "refund.requested", "refund.resolved"],
    );
    const actor = `merchant:${merchant.merchantId}/key:${merchant.keyId}`;
    t.ok(log.slice(1).every((r) => r.actor === actor && String(r.reason).length > 0), "each names the key that acted and why");
  }),
);
