/**
 * Spec, Payment service: a PaymentAttempt "records one provider interaction". An attempt whose
 * authorization was captured records `captured` whichever answer applied the capture first: the
 * merchant's capture, or the provider's `payment.captured` event (migration 26 allows
 * authorized -> captured). SQLite and Postgres.
 */
import t from "tap";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import type { ProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const attemptStatus = async (db: SqlDatabase, intentId: string) =>
  (await db.db.selectFrom("payment_attempts").select("status").where("intent_id", "=", intentId).executeTakeFirstOrThrow()).status;

t.test("an attempt whose authorization was captured records captured, whichever answer came first", (t) =>
  forEachDialect(t, "attempt records its capture", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const held = async () => {
      const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR", captureMethod: "manual" }));
      await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
      t.equal(await attemptStatus(db, intent.id), "authorized");
      return intent;
    };

    const byMerchant = await held();
    await run(captureIntent(merchant, byMerchant.id, { amountMinor: 700 }));
    t.equal(await attemptStatus(db, byMerchant.id), "captured", "the merchant's capture applied first");

    const byWebhook = await held();
    const payment = provider.payments().find((p) => p.reference === attemptReference(byWebhook.id, 1));
    const event: ProviderEvent = {
      id: `evt_${byWebhook.id}`,
      type: "payment.captured",
      occurredAt: new Date(),
      data: {
        kind: "payment",
        status: "captured",
        reference: attemptReference(byWebhook.id, 1),
        providerPaymentId: payment?.providerPaymentId ?? null,
        amountMinor: 1000,
        capturedMinor: 700,
        currency: "EUR",
        declineCode: null,
      },
      payload: {},
    };
    await run(processProviderEvent(event));
    t.equal(await attemptStatus(db, byWebhook.id), "captured", "the provider's event applied first");
  }),
);
