/**
 * Spec, Payment service: "Provider state is reconciled"; a mismatch opens an exception for a
 * human, "never silently auto-adjusted". A provider event saying it captured money under an
 * earlier attempt's reference (one our records hold declined or superseded) is not applied to the
 * intent, but opens a reconciliation exception at once (kind `status`, the capture observed)
 * instead of waiting for the settlement file. SQLite and Postgres.
 */
import t from "tap";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import type { ProviderEvent } from "../../core/payments/model/ProviderEvent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const capturedEvent = (id: string, reference: string, status: "captured" | "authorized" = "captured"): ProviderEvent => ({
  id,
  type: `payment.${status}`,
  occurredAt: new Date(),
  data: {
    kind: "payment",
    status,
    reference,
    providerPaymentId: "sbx_pay_late",
    amountMinor: 1000,
    capturedMinor: status === "captured" ? 1000 : 0,
    currency: "EUR",
    declineCode: null,
  },
  payload: {},
});

t.test("a capture the provider reports under an earlier attempt opens an exception at once, and moves nothing", (t) =>
  forEachDialect(t, "earlier attempt captured", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR" }));
    t.equal((await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.declined }))).outcome, "declined");
    t.equal((await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }))).outcome, "succeeded");
    const ledgerBefore = (await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length;

    const receipt = await run(processProviderEvent(capturedEvent("evt_late_capture", attemptReference(intent.id, 1))));
    t.match(receipt, { status: "ignored", reason: /earlier attempt.*exception/ });
    const rows = await db.db.selectFrom("payment_reconciliation_exceptions").select(["kind", "subject_id", "provider_object", "status", "observed"]).execute();
    t.equal(rows.length, 1, "one exception");
    t.match(rows[0], { kind: "status", subject_id: intent.id, provider_object: attemptReference(intent.id, 1), status: "open" });
    const observed = typeof rows[0]?.observed === "string" ? JSON.parse(rows[0].observed) : rows[0]?.observed;
    t.match(observed, { status: "captured", captured_minor: 1000, currency: "EUR" });
    t.match(await run(getIntent(merchant, intent.id)), { status: "succeeded", amountCapturedMinor: 1000 }, "the intent is not moved");
    t.equal((await db.db.selectFrom("payment_ledger_entries").select("id").execute()).length, ledgerBefore, "nothing posted");

    await run(processProviderEvent(capturedEvent("evt_late_capture_again", attemptReference(intent.id, 1))));
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").select("id").execute()).length, 1, "opened once per reference");
    await run(processProviderEvent(capturedEvent("evt_late_hold", attemptReference(intent.id, 1), "authorized")));
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").select("id").execute()).length, 1, "a hold under the same reference opens no second exception");
  }),
);
