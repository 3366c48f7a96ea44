/**
 * The disputes projection: provider dispute events (dispute.created / updated / closed) become a
 * read-only row per dispute of the intent's merchant; an event applies only when it is newer in
 * provider time and the dispute is not closed, so duplicates, late and reordered events change
 * nothing (also when raced on parallel connections); each applied event is audited; merchants
 * list only their own disputes as keyset pages (GET /v1/disputes, scope ledger:read).
 */
import "../../adapters/sql/payments/index.js";
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { applyDisputeEvent, disputeEventFromProvider, listDisputes } from "../../core/payments/DisputeProjection.js";
import type { DisputeEventType, DisputeStatus, ProviderDisputeEvent } from "../../core/payments/model/Dispute.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { forEachDialect, type HasTeardown } from "../support/databases.js";
import { call, paymentsRuntime } from "./support.js";

/** The payment module's runtime over `db` (its definition, a fresh sandbox provider). */
const runtimeOver = (t: HasTeardown, db: SqlDatabase) => paymentsRuntime(t, db).runtime;

/** A merchant with one captured intent; answers the merchant principal and the provider payment id. */
const paidIntent = (scopes: ReadonlyArray<string> = ["payments:write", "ledger:read"]) =>
  Effect.gen(function* () {
    const created = yield* createMerchant({ name: "Disputed shop", scopes, actor: "system:test" });
    const principal = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes };
    const intent = yield* createIntent(principal, { amountMinor: 4000, currency: "EUR" });
    const confirmed = yield* confirmIntent(principal, intent.id, { paymentMethod: sandboxTokens.visa });
    return { principal, intentId: intent.id, providerPaymentId: String(confirmed.intent.providerPaymentId) };
  });

let sequence = 0;
const disputeEvent = (providerPaymentId: string, type: DisputeEventType, createdMs: number, status: DisputeStatus, disputeId = "dp_1"): ProviderDisputeEvent => ({
  id: `evt_${++sequence}`,
  type,
  createdMs,
  dispute: { id: disputeId, providerPaymentId, amountMinor: 4000, currency: "EUR", reason: "fraudulent", status },
});

t.test("dispute events apply only forward in provider time and never reopen a closed dispute", (t) =>
  forEachDialect(t, "monotonic projection", async (t, db) => {
    const runtime = runtimeOver(t, db);
    const { intentId, providerPaymentId, principal } = await runtime.runPromise(paidIntent());
    const apply = (event: ProviderDisputeEvent) => runtime.runPromise(applyDisputeEvent(event));
    const created = disputeEvent(providerPaymentId, "dispute.created", 1_000, "needs_response");
    t.match(await apply(created), { status: "applied", dispute: { paymentIntentId: intentId, merchantId: principal.merchantId, status: "needs_response" } });
    t.match(await apply(created), { status: "ignored", reason: "stale_or_closed" }, "a duplicate changes nothing");
    t.match(await apply(disputeEvent(providerPaymentId, "dispute.updated", 500, "under_review")), { status: "ignored" }, "an older event changes nothing");
    t.match(await apply(disputeEvent(providerPaymentId, "dispute.updated", 2_000, "under_review")), { status: "applied", dispute: { status: "under_review" } });
    t.match(await apply(disputeEvent(providerPaymentId, "dispute.closed", 3_000, "won")), { status: "applied", dispute: { status: "won" } });
    t.match(await apply(disputeEvent(providerPaymentId, "dispute.updated", 4_000, "needs_response")), { status: "ignored" }, "a closed dispute stays closed");
    t.match(await apply(disputeEvent("py_unknown", "dispute.created", 1, "needs_response", "dp_2")), { status: "ignored", reason: "unknown_payment" });
    const rows = await db.db.selectFrom("payment_disputes").selectAll().execute();
    t.equal(rows.length, 1);
    t.match(rows[0], { status: "won", payment_intent_id: intentId });
    const audit = await db.db.selectFrom("payment_audit_log").select(["action", "actor"]).where("subject_type", "=", "dispute").orderBy("created_at").execute();
    t.same(audit.map((a) => a.action), ["dispute.created", "dispute.updated", "dispute.closed"], "each applied event is audited");
    const listed = await runtime.runPromise(listDisputes(principal, { limit: 10 }));
    t.match(listed, { data: [{ providerDisputeId: "dp_1", status: "won" }], nextCursor: null });
  }),
);

t.test("events of one dispute raced on parallel connections end at the newest", (t) =>
  forEachDialect(t, "parallel events", async (t, db) => {
    const runtime = runtimeOver(t, db);
    const { providerPaymentId } = await runtime.runPromise(paidIntent());
    const events = Array.from({ length: 12 }, (_, i) =>
      disputeEvent(providerPaymentId, i === 0 ? "dispute.created" : "dispute.updated", 1_000 + i, i % 2 === 0 ? "needs_response" : "under_review", "dp_race"),
    );
    const shuffled = [...events].reverse();
    await Promise.all(shuffled.map((event) => runtime.runPromise(applyDisputeEvent(event))));
    const row = await db.db.selectFrom("payment_disputes").selectAll().where("provider_dispute_id", "=", "dp_race").executeTakeFirstOrThrow();
    t.equal(Number(row.last_event_ms), 1_011, "the newest event wins whatever the arrival order");
    t.equal(row.status, "under_review");
    t.equal(row.last_event_id, events[11]?.id);
  }),
);

t.test("the provider's wire shape decodes to a dispute event; anything else is not one", async (t) => {
  const payload = { id: "evt_9", type: "dispute.created", data: { object: { id: "dp_9", payment: "py_9", amount_minor: 100, currency: "USD", reason: "fraudulent", status: "needs_response" } } };
  t.match(disputeEventFromProvider({ id: "evt_9", type: "dispute.created", occurredAt: new Date(5_000), payload }), {
    id: "evt_9",
    type: "dispute.created",
    createdMs: 5_000,
    dispute: { id: "dp_9", providerPaymentId: "py_9", amountMinor: 100, currency: "USD", status: "needs_response" },
  });
  t.equal(disputeEventFromProvider({ id: "e", type: "payment.captured", occurredAt: new Date(), payload }), null);
  t.equal(disputeEventFromProvider({ id: "e", type: "dispute.updated", occurredAt: new Date(), payload: { data: { object: { id: "dp" } } } }), null);
});

t.test("merchants list only their own disputes, as keyset pages, with ledger:read", (t) =>
  forEachDialectConfig(t, "dispute list", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const owner = await createMerchantWithKey(server.core.runtime, { name: "Owner", scopes: ["payments:write", "ledger:read"] });
    const other = await createMerchantWithKey(server.core.runtime, { name: "Other", scopes: ["ledger:read"] });
    const writer = await createMerchantWithKey(server.core.runtime, { name: "Writer", scopes: ["payments:write"] });
    const principal = { kind: "merchant" as const, merchantId: owner.merchant_id, keyId: owner.key_id, scopes: ["payments:write"] };
    for (const n of [1, 2, 3]) {
      const pid = await server.core.runtime.runPromise(
        Effect.gen(function* () {
          const intent = yield* createIntent(principal, { amountMinor: 1000 * n, currency: "EUR" });
          return String((yield* confirmIntent(principal, intent.id, { paymentMethod: sandboxTokens.visa })).intent.providerPaymentId);
        }),
      );
      await server.core.runtime.runPromise(applyDisputeEvent(disputeEvent(pid, "dispute.created", n, "needs_response", `dp_list_${n}`)));
    }
    const first = await call(`${server.url}/v1/disputes?limit=2`, { key: owner.api_key });
    t.equal(first.status, 200);
    t.equal((first.body.data as unknown[]).length, 2);
    t.match((first.body.data as unknown[])[0], { object: "dispute", provider_dispute_id: "dp_list_3", status: "needs_response", currency: "EUR" });
    const second = await call(`${server.url}/v1/disputes?limit=2&cursor=${String(first.body.next_cursor)}`, { key: owner.api_key });
    t.match(second.body, { data: [{ provider_dispute_id: "dp_list_1" }], next_cursor: null });
    t.same((await call(`${server.url}/v1/disputes`, { key: other.api_key })).body, { data: [], next_cursor: null }, "another merchant sees none");
    t.match(await call(`${server.url}/v1/disputes`, { key: writer.api_key }), { status: 403 }, "ledger:read is needed");
    t.match(await call(`${server.url}/v1/disputes?cursor=bad`, { key: owner.api_key }), { status: 400, body: { code: "invalid_cursor" } });
  }),
);
