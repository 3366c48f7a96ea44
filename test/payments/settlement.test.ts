/**
 * Settlement-file reconciliation (spec rule 12), SQLite and Postgres: the sandbox publishes a
 * CSV of what it settled on a UTC day; comparing it with our captures and refunds opens one
 * exception per mismatching object — missing on either side, amount, currency, status — and
 * running the same day again (one after the other, or two runs racing) opens nothing new, because
 * (provider object, settlement window) is unique. Nothing is adjusted automatically.
 */
import { Effect } from "effect";
import t from "tap";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import "../../adapters/sql/payments/index.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { reconcileSettlementDay, reconcileSettlementFile } from "../../core/payments/SettlementReconciliation.js";
import { forEachDialect } from "../support/databases.js";
import { paymentsRuntime } from "./support.js";

const today = () => new Date().toISOString().slice(0, 10);

/** A day with one matching payment, one matching refund and one of every mismatch. */
const aDayOfMismatches = async (run: ReturnType<typeof paymentsRuntime>["run"], provider: ReturnType<typeof paymentsRuntime>["provider"]) => {
  const created = await run(createMerchant({ name: "Settling shop", scopes: ["payments:write", "refunds:write"], actor: "system:test" }));
  const merchant = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write", "refunds:write"] };
  const pay = async (amountMinor: number, token: string = sandboxTokens.visa) => {
    const intent = await run(createIntent(merchant, { amountMinor, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: token }));
    return { id: intent.id, ref: `pi_${intent.id}_attempt_1` };
  };
  const matching = await pay(1000);
  const refund = await run(createRefund(merchant, { intentId: matching.id, amountMinor: 250 }));
  const amount = await pay(2000);
  const currency = await pay(3000);
  const status = await pay(4000);
  const omitted = await pay(5000);
  const ambiguous = await pay(6000, sandboxTokens.timeoutAfter); // the provider captured; we still say processing
  provider.injectSettlementFault(amount.ref, { amountMinor: 1999 });
  provider.injectSettlementFault(currency.ref, { currency: "USD" });
  provider.injectSettlementFault(status.ref, { status: "reversed" });
  provider.injectSettlementFault(omitted.ref, { omit: true });
  const csv = provider.settlementFile(today()) + "payment,pi_unknown_to_us_attempt_1,sbx_pay_999,700,EUR,captured,2026-01-01T00:00:00.000Z\n";
  return { merchant, matching, refund, amount, currency, status, omitted, ambiguous, csv };
};

const exceptions = (db: SqlDatabase) =>
  db.db.selectFrom("payment_reconciliation_exceptions").select(["provider_object", "kind", "merchant_id", "status", "settlement_window"]).orderBy("provider_object").orderBy("kind").execute();

t.test("each mismatch of a settlement file opens exactly one exception", (t) =>
  forEachDialect(t, "mismatches", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const day = await aDayOfMismatches(run, provider);
    const summary = await run(reconcileSettlementFile(today(), day.csv));
    t.match(summary, { rows: 7, mismatches: 6, opened: 6 });
    const rows = await exceptions(db);
    const kinds = Object.fromEntries(rows.map((r) => [`${String(r.provider_object)}|${String(r.kind)}`, r]));
    t.ok(kinds[`${day.amount.ref}|amount`], "amount differs");
    t.ok(kinds[`${day.currency.ref}|currency`], "currency differs");
    t.ok(kinds[`${day.status.ref}|status`], "status differs");
    t.ok(kinds[`${day.omitted.ref}|missing`], "settled by us, missing from the file");
    t.ok(kinds[`${day.ambiguous.ref}|status`], "captured at the provider while we still wait in processing");
    t.match(kinds["pi_unknown_to_us_attempt_1|missing"], { merchant_id: null }, "in the file, unknown to us: an operator item");
    t.notOk(rows.some((r) => r.provider_object === day.matching.ref || r.provider_object === `re_${day.refund.id}`), "matching capture and refund open nothing");
    t.ok(rows.every((r) => r.status === "open" && r.settlement_window === today()));
    const events = await db.db.selectFrom("outbox").select("type").where("type", "=", "ReconciliationMismatchFound").execute();
    t.equal(events.length, 6, "ReconciliationMismatchFound once per exception");
    const opened = await db.db.selectFrom("payment_reconciliation_outcomes").select(["action", "actor"]).execute();
    t.equal(opened.length, 6);
    t.ok(opened.every((o) => o.action === "opened" && o.actor === "system:reconciliation"), "each opening is audited with its actor");
    const intents = await db.db.selectFrom("payment_intents").select(["id", "status", "amount_captured_minor"]).where("id", "=", day.amount.id).executeTakeFirstOrThrow();
    t.match(intents, { status: "succeeded", amount_captured_minor: 2000 }, "never silently auto-adjusted");
  }),
);

t.test("running the same day again opens nothing new, even two runs at once", (t) =>
  forEachDialect(t, "idempotent", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const day = await aDayOfMismatches(run, provider);
    // Eight runs on their own connections (Postgres): the unique index of the (provider object,
    // window) pair and the older (provider object, window, kind) constraint both see the race; a
    // run that loses it on either opens nothing and fails nothing.
    const raced = await Promise.all(Array.from({ length: 8 }, () => run(reconcileSettlementFile(today(), day.csv))));
    t.equal(raced.reduce((sum, r) => sum + r.opened, 0), 6, "racing runs open each mismatch once between them");
    const again = await run(reconcileSettlementFile(today(), day.csv));
    t.match(again, { mismatches: 6, opened: 0 });
    t.equal((await exceptions(db)).length, 6);
    t.equal((await db.db.selectFrom("outbox").select("id").where("type", "=", "ReconciliationMismatchFound").execute()).length, 6, "and emits nothing new");
  }),
);

t.test("the settlement job fetches the provider's file of the day", (t) =>
  forEachDialect(t, "job", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const day = await aDayOfMismatches(run, provider);
    const summary = await run(reconcileSettlementDay(today()));
    t.match(summary, { rows: 6, opened: 5 }, "the provider's own file has no foreign row");
    t.equal((await exceptions(db)).length, 5);
    t.ok(day.csv.startsWith("type,reference,provider_payment_id,amount_minor,currency,status,settled_at\n"));
  }),
);

t.test("a file that is not the provider's format is refused whole", (t) =>
  forEachDialect(t, "invalid", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const bad = await run(Effect.either(reconcileSettlementFile(today(), "type,reference\npayment,x\n")));
    t.match(bad, { _tag: "Left", left: { code: "settlement_file_invalid" } });
    const badRow = await run(Effect.either(reconcileSettlementFile(today(), "type,reference,provider_payment_id,amount_minor,currency,status,settled_at\npayment,a,b,12x,EUR,captured,z\n")));
    t.match(badRow, { _tag: "Left", left: { code: "settlement_file_invalid" } });
    const badDay = await run(Effect.either(reconcileSettlementFile("2026-02-30", "type,reference,provider_payment_id,amount_minor,currency,status,settled_at\n")));
    t.match(badDay, { _tag: "Left", left: { code: "settlement_file_invalid" } });
    t.equal((await exceptions(db)).length, 0);
  }),
);

/*
 * Spec (Payment service, Events): ReconciliationMismatchFound is "Unique per provider object and
 * settlement window; never silently auto-adjusted". A settlement row whose status and currency
 * both differ from ours opens one exception, carrying both kinds, and emits one event.
 */
/** A JSON column as text: SQLite answers the text, Postgres the parsed value. */
const asJsonText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

t.test("a row mismatching both status and currency opens one exception and emits one event", (t) =>
  forEachDialect(t, "one per object and window", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Twice wrong shop", scopes: ["payments:write"], actor: "system:test" }));
    const merchant = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write"] };
    const intent = await run(createIntent(merchant, { amountMinor: 4500, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    const reference = `pi_${intent.id}_attempt_1`;
    provider.injectSettlementFault(reference, { status: "reversed", currency: "USD" });
    const summary = await run(reconcileSettlementFile(today(), provider.settlementFile(today())));
    t.match(summary, { rows: 1, mismatches: 1, opened: 1 });
    const rows = await exceptions(db);
    t.equal(rows.length, 1, "one exception for the object and window");
    t.match(rows[0], { provider_object: reference, settlement_window: today(), status: "open" });
    const events = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "ReconciliationMismatchFound").execute();
    t.equal(events.length, 1, "one ReconciliationMismatchFound");
    t.match(asJsonText(events[0]?.event), /"kinds":\["status","currency"\]/, "the event carries every kind found");
    const opened = await db.db.selectFrom("payment_reconciliation_outcomes").select("data").execute();
    t.equal(opened.length, 1);
    t.match(asJsonText(opened[0]?.data), /"kinds":\["status","currency"\]/, "so does the exception's opening record");
    t.match(await run(reconcileSettlementFile(today(), provider.settlementFile(today()))), { opened: 0 }, "a second run opens nothing");
  }),
);
