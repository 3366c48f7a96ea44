/**
 * Spec, Payment service, States: a provider webhook applies when the "transition is legal and
 * monotonic", with "balanced ledger posting in the same transaction"; "Provider state is
 * reconciled"; "Ambiguous provider outcomes ... are never guessed". A payment event applies only
 * when what it states matches the intent: a capture captured something, an authorization or
 * capture is for the intent's amount; an authorization the provider voided (e.g. expired) cancels
 * the held intent, as reconciliation does. SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import type { ProviderEvent, ProviderPaymentEventData } from "../../core/payments/model/ProviderEvent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialect } from "../support/databases.js";
import { intentRow } from "./intentRows.js";
import { insertPosting } from "./ledgerRows.js";
import { newMerchant, paymentsRuntime } from "./support.js";

let eventSeq = 0;
const paymentEvent = (data: Omit<ProviderPaymentEventData, "kind">): ProviderEvent => ({
  id: `evt_match_${process.pid}_${++eventSeq}`,
  type: `payment.${data.status}`,
  occurredAt: new Date(),
  data: { kind: "payment", ...data },
  payload: {},
});

const heldIntent = async (run: ReturnType<typeof paymentsRuntime>["run"], amountMinor: number) => {
  const merchant = await newMerchant(run);
  const intent = await run(createIntent(merchant, { amountMinor, currency: "EUR", captureMethod: "manual" }));
  await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
  return { merchant, intent };
};

const ledgerRows = async (db: Kysely<any>) => (await db.selectFrom("payment_ledger_entries").select("id").execute()).length;

t.test("a captured event that captured nothing never settles a held intent", (t) =>
  forEachDialect(t, "captured nothing", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 800);
    const receipt = await run(
      processProviderEvent(
        paymentEvent({
          status: "captured",
          reference: attemptReference(intent.id, 1),
          providerPaymentId: provider.payments()[0]?.providerPaymentId ?? null,
          amountMinor: 800,
          capturedMinor: 0,
          currency: "EUR",
          declineCode: null,
        }),
      ),
    );
    t.match(receipt, { status: "ignored" }, "stored, not applied");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturableMinor: 800, amountCapturedMinor: 0 });
    t.equal(await ledgerRows(db.db as Kysely<any>), 0, "nothing posted");
  }),
);

t.test("an authorization or capture event for another amount than the intent's is not applied", (t) =>
  forEachDialect(t, "event amount differs", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 900, currency: "EUR", captureMethod: "manual" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    t.match(await run(getIntent(merchant, intent.id)), { status: "processing" });
    const reference = attemptReference(intent.id, 1);
    const providerPaymentId = provider.payments()[0]?.providerPaymentId ?? null;
    const authorizedLess = await run(
      processProviderEvent(paymentEvent({ status: "authorized", reference, providerPaymentId, amountMinor: 500, capturedMinor: 0, currency: "EUR", declineCode: null })),
    );
    t.match(authorizedLess, { status: "ignored" }, "an authorization of 500 is not the intent's 900");
    t.match(await run(getIntent(merchant, intent.id)), { status: "processing", amountCapturableMinor: 0 });
    const authorized = await run(
      processProviderEvent(paymentEvent({ status: "authorized", reference, providerPaymentId, amountMinor: 900, capturedMinor: 0, currency: "EUR", declineCode: null })),
    );
    t.match(authorized, { status: "processed" }, "the intent's own amount applies");
    t.match(await run(getIntent(merchant, intent.id)), { status: "requires_capture", amountCapturableMinor: 900 });
  }),
);

t.test("a voided event cancels a held authorization: the provider no longer holds it", (t) =>
  forEachDialect(t, "voided authorization", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await heldIntent(run, 700);
    const receipt = await run(
      processProviderEvent(
        paymentEvent({
          status: "voided",
          reference: attemptReference(intent.id, 1),
          providerPaymentId: provider.payments()[0]?.providerPaymentId ?? null,
          amountMinor: 700,
          capturedMinor: 0,
          currency: "EUR",
          declineCode: null,
        }),
      ),
    );
    t.match(receipt, { status: "processed" });
    t.match(await run(getIntent(merchant, intent.id)), { status: "canceled", amountCapturableMinor: 0, amountCapturedMinor: 0 });
    const audit = await db.db.selectFrom("payment_audit_log").select(["action", "actor"]).where("subject_id", "=", intent.id).where("action", "=", "payment_intent.canceled").execute();
    t.same(audit, [{ action: "payment_intent.canceled", actor: "provider:webhook" }], "audited as the provider's");
    t.equal(await ledgerRows(db.db as Kysely<any>), 0, "nothing posted");
  }),
);

t.test("a succeeded intent has captured something, in the database", (t) =>
  forEachDialect(t, "succeeded captured", async (t, database) => {
    const db = database.db as Kysely<any>;
    await db.insertInto("payment_merchants").values({ id: "merchant-a", name: "merchant-a", created_at: new Date().toISOString() }).execute();
    await db.insertInto("payment_intents").values(intentRow("held", { capture_method: "manual", status: "requires_capture", amount_capturable_minor: 1000, amount_captured_minor: 0 })).execute();
    // Its posting exists (migration 30), so what is refused is the capture of nothing.
    await insertPosting(db, "payment_intent:held:capture", "merchant-a", 400);
    await t.rejects(
      db.updateTable("payment_intents").set({ status: "succeeded", amount_capturable_minor: 0, version: 2 }).where("id", "=", "held").execute(),
      "succeeded with nothing captured is refused",
    );
    await t.rejects(db.insertInto("payment_intents").values(intentRow("paid-nothing", { amount_captured_minor: 0 })).execute(), "inserted succeeded with nothing captured is refused");
    await db.updateTable("payment_intents").set({ status: "succeeded", amount_capturable_minor: 0, amount_captured_minor: 400, version: 2 }).where("id", "=", "held").execute();
    const row = await db.selectFrom("payment_intents").select(["status", "amount_captured_minor"]).where("id", "=", "held").executeTakeFirstOrThrow();
    t.same([row.status, Number(row.amount_captured_minor)], ["succeeded", 400]);
  }),
);
