/**
 * The verified provider webhook inbox (spec rule 4), over HTTP on the reference server and on
 * the core, SQLite and Postgres: the signature over the raw body and its timestamp (300 s
 * tolerance in both directions, several v1 values while secrets rotate) are checked before
 * anything is stored; the provider event id is unique, so a replay (sequential or ten in
 * parallel) changes nothing and answers 200; only legal, monotonic transitions apply, so an
 * older or reordered event never moves an intent backwards; the transition and its ledger
 * posting commit in one transaction. The sandbox signs and delivers the events it recorded:
 * duplicate, out-of-order and delayed deliveries are the tests' choice of what to post when.
 */
import { Cause, Effect, Exit } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens, type SandboxEvent, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { deliverSandboxWebhook, makeSandboxWebhookReceiver, signWebhook } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import "../../adapters/sql/payments/index.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { processProviderEvent } from "../../core/payments/ProviderEventProcessing.js";
import { resolveRefundJobType } from "../../core/payments/ResolveRefundJobType.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { forEachDialect, type HasTeardown } from "../support/databases.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey, paymentsRuntime, sandboxPaymentsModule } from "./support.js";

const secret = "whsec_test_current_secret_0123456789";
const oldSecret = "whsec_test_previous_secret_9876543210";

const startServer = async (t: HasTeardown, config: Parameters<typeof startReferenceServer>[1], secrets: ReadonlyArray<string> = [secret]) => {
  const provider = makeSandboxProvider();
  const { server, logText } = await startReferenceServer(t, config, { modules: [sandboxPaymentsModule(provider, secrets)] });
  const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Webhook shop", scopes: ["payments:write", "refunds:write", "ledger:read"] });
  const db = server.core.database.db;
  const hook = `${server.url}/v1/webhooks/provider`;
  const intent = async (body: Record<string, unknown>, token: string) => {
    const created = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body });
    const id = String(created.body.id);
    const confirmed = await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: token } });
    return { id, confirmed };
  };
  const read = async (id: string) => (await call(`${server.url}/v1/payment-intents/${id}`, { key })).body;
  const count = async (table: "payment_provider_events" | "payment_ledger_entries" | "payment_audit_log") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return { server, provider, logText, key, db, hook, intent, read, count };
};

const eventsFor = (provider: SandboxProvider, reference: string): SandboxEvent[] =>
  provider.events().filter((e) => e.data.reference === reference);
const lastEvent = (provider: SandboxProvider, reference: string): SandboxEvent => {
  const events = eventsFor(provider, reference);
  const last = events[events.length - 1];
  if (last === undefined) throw new Error(`no sandbox event for ${reference}`);
  return last;
};
const attemptRef = (intentId: string, n = 1) => `pi_${intentId}_attempt_${n}`;

t.test("a signed event resolves a processing intent, with its ledger posting, and is stored once", (t) =>
  forEachDialectConfig(t, "applied", async (t, config) => {
    const s = await startServer(t, config);
    const { id, confirmed } = await s.intent({ amount_minor: 1500, currency: "EUR" }, sandboxTokens.timeoutAfter);
    t.equal(confirmed.status, 202, "the lost answer leaves the intent processing");
    const event = lastEvent(s.provider, attemptRef(id));
    t.equal(event.type, "payment.captured", "the provider acted and recorded it");
    const delivered = await deliverSandboxWebhook(s.hook, event, { secret });
    t.equal(delivered.status, 200);
    t.match(delivered.body, { received: true, provider_event_id: event.id, duplicate: false, status: "processed" });
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 1500 });
    t.equal(await s.count("payment_ledger_entries"), 2, "the capture is posted with the transition");
    const rows = await s.db.selectFrom("payment_provider_events").select(["provider_event_id", "status", "provider_object"]).execute();
    t.same(rows, [{ provider_event_id: event.id, status: "processed", provider_object: attemptRef(id) }]);
    t.notOk(s.logText().includes(secret), "the webhook secret is never logged");
  }),
);

t.test("a replayed provider event id changes nothing and answers 200, even ten at once", (t) =>
  forEachDialectConfig(t, "replay", async (t, config) => {
    const s = await startServer(t, config);
    const { id } = await s.intent({ amount_minor: 900, currency: "USD" }, sandboxTokens.timeoutAfter);
    const event = lastEvent(s.provider, attemptRef(id));
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliverSandboxWebhook(s.hook, event, { secret })));
    t.same(answers.map((a) => a.status), Array(10).fill(200), "every delivery of the same event is acknowledged");
    t.equal(answers.filter((a) => a.body.duplicate === false).length, 1, "exactly one delivery stored it");
    const audits = await s.count("payment_audit_log");
    const again = await deliverSandboxWebhook(s.hook, event, { secret });
    t.match(again, { status: 200, body: { duplicate: true, status: "processed" } });
    t.equal(await s.count("payment_provider_events"), 1, "one inbox row");
    t.equal(await s.count("payment_ledger_entries"), 2, "posted once");
    t.equal(await s.count("payment_audit_log"), audits, "a replay writes nothing, not even audit");
    t.match(await s.read(id), { status: "succeeded", version: 3 });
  }),
);

t.test("a bad signature answers 400 and stores nothing", (t) =>
  forEachDialectConfig(t, "bad signature", async (t, config) => {
    const s = await startServer(t, config);
    const { id } = await s.intent({ amount_minor: 700, currency: "EUR" }, sandboxTokens.timeoutAfter);
    const event = lastEvent(s.provider, attemptRef(id));
    const body = JSON.stringify(event);
    const now = Date.now() / 1000;
    const tampered = JSON.stringify({ ...event, data: { ...event.data, captured_minor: 1 } });
    const cases: Array<[string, Parameters<typeof deliverSandboxWebhook>[2]]> = [
      ["wrong secret", { secret: "whsec_somebody_else" }],
      ["body changed after signing", { secret, body: tampered, signature: signWebhook(secret, body, now) }],
      ["no v1", { secret, signature: `t=${Math.floor(now)}` }],
      ["no timestamp", { secret, signature: signWebhook(secret, body, now).replace(/^t=\d+,/, "") }],
      ["timestamp changed after signing", { secret, signature: signWebhook(secret, body, now).replace(/^t=\d+/, `t=${Math.floor(now) - 1}`) }],
      ["empty header", { secret, signature: "" }],
    ];
    for (const [name, options] of cases) {
      const answer = await deliverSandboxWebhook(s.hook, event, options);
      t.equal(answer.status, 400, name);
      t.equal(answer.body.code, "webhook_signature_invalid", name);
      t.notOk(JSON.stringify(answer.body).includes(secret), `${name}: no secret in the error body`);
    }
    t.equal(await s.count("payment_provider_events"), 0, "nothing stored");
    t.equal(await s.count("payment_ledger_entries"), 0);
    t.match(await s.read(id), { status: "processing" }, "nothing applied");
  }),
);

t.test("a timestamp outside 300 s in either direction answers 400; inside it is accepted", (t) =>
  forEachDialectConfig(t, "tolerance", async (t, config) => {
    const s = await startServer(t, config);
    const now = Date.now() / 1000;
    const { id: a } = await s.intent({ amount_minor: 100, currency: "EUR" }, sandboxTokens.timeoutAfter);
    const event = lastEvent(s.provider, attemptRef(a));
    for (const skew of [-360, 360]) {
      const answer = await deliverSandboxWebhook(s.hook, event, { secret, timestampSeconds: now + skew });
      t.equal(answer.status, 400, `${skew} s`);
      t.equal(answer.body.code, "webhook_timestamp_out_of_tolerance", `${skew} s`);
    }
    t.equal(await s.count("payment_provider_events"), 0, "a stale or future delivery stores nothing");
    t.equal((await deliverSandboxWebhook(s.hook, event, { secret, timestampSeconds: now - 240 })).status, 200, "240 s old is within tolerance");
    const { id: b } = await s.intent({ amount_minor: 100, currency: "EUR" }, sandboxTokens.timeoutAfter);
    t.equal((await deliverSandboxWebhook(s.hook, lastEvent(s.provider, attemptRef(b)), { secret, timestampSeconds: now + 240 })).status, 200, "240 s ahead is within tolerance");
  }),
);

t.test("while secrets rotate, any v1 matching any current secret is accepted", (t) =>
  forEachDialectConfig(t, "rotation", async (t, config) => {
    const s = await startServer(t, config, [secret, oldSecret]);
    const { id: a } = await s.intent({ amount_minor: 100, currency: "EUR" }, sandboxTokens.timeoutAfter);
    const { id: b } = await s.intent({ amount_minor: 100, currency: "EUR" }, sandboxTokens.timeoutAfter);
    const signedByOld = await deliverSandboxWebhook(s.hook, lastEvent(s.provider, attemptRef(a)), { secret: ["whsec_unknown_to_us", oldSecret] });
    t.equal(signedByOld.status, 200, "the previous secret still verifies, among several v1 values");
    const signedByNew = await deliverSandboxWebhook(s.hook, lastEvent(s.provider, attemptRef(b)), { secret });
    t.equal(signedByNew.status, 200, "the new secret verifies");
    t.equal(await s.count("payment_provider_events"), 2);
  }),
);

t.test("out-of-order and delayed events never move an intent backwards", (t) =>
  forEachDialectConfig(t, "monotonic", async (t, config) => {
    const s = await startServer(t, config);
    const { id, confirmed } = await s.intent({ amount_minor: 4200, currency: "EUR" }, sandboxTokens.authenticationRequired);
    t.match(confirmed.body, { status: "requires_action" });
    const older = lastEvent(s.provider, attemptRef(id));
    t.equal(older.type, "payment.requires_action");
    const newer = s.provider.completeAction(attemptRef(id));
    if (newer === null) throw new Error("the sandbox did not complete the action");
    // Delivered newest first: the captured event applies, then the older one must not.
    t.match((await deliverSandboxWebhook(s.hook, newer, { secret })).body, { status: "processed" });
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 4200 });
    const late = await deliverSandboxWebhook(s.hook, older, { secret });
    t.match(late, { status: 200, body: { duplicate: false, status: "ignored" } }, "stored and acknowledged, not applied");
    t.match(await s.read(id), { status: "succeeded", amount_captured_minor: 4200 }, "no way back to requires_action");
    // A delayed delivery (created an hour ago, signed now) of a contradicting event is ignored too.
    const delayed: SandboxEvent = { ...older, id: "evt_delayed_decline", type: "payment.declined", created: Math.floor(Date.now() / 1000) - 3600, data: { ...older.data, status: "declined", decline_code: "card_declined" } };
    t.match((await deliverSandboxWebhook(s.hook, delayed, { secret })).body, { status: "ignored" });
    t.match(await s.read(id), { status: "succeeded" });
    t.equal(await s.count("payment_ledger_entries"), 2, "one capture posting");
    t.equal(await s.count("payment_provider_events"), 3, "every verified event is kept with its outcome");
  }),
);

t.test("a delayed event still resolves what it is about", (t) =>
  forEachDialectConfig(t, "delayed", async (t, config) => {
    const s = await startServer(t, config);
    const { id } = await s.intent({ amount_minor: 300, currency: "GBP", capture_method: "manual" }, sandboxTokens.timeoutAfter);
    const event = lastEvent(s.provider, attemptRef(id));
    const delayed = { ...event, created: event.created - 7200 };
    t.match((await deliverSandboxWebhook(s.hook, delayed, { secret })).body, { status: "processed" });
    t.match(await s.read(id), { status: "requires_capture", amount_capturable_minor: 300 });
  }),
);

t.test("a refund event completes a pending refund once, with its ledger posting", (t) =>
  forEachDialectConfig(t, "refund", async (t, config) => {
    const s = await startServer(t, config);
    const { id } = await s.intent({ amount_minor: 1000, currency: "EUR" }, sandboxTokens.visa);
    s.provider.injectFault("refund", "timeout_after");
    const refund = await call(`${s.server.url}/v1/refunds`, { key: s.key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 400 } });
    t.match(refund, { status: 202, body: { status: "pending" } });
    const event = lastEvent(s.provider, `re_${String(refund.body.id)}`);
    t.equal(event.type, "refund.succeeded");
    t.match((await deliverSandboxWebhook(s.hook, event, { secret })).body, { status: "processed", reason: "pending -> succeeded" });
    t.match((await deliverSandboxWebhook(s.hook, { ...event, id: "evt_same_refund_again" }, { secret })).body, { status: "ignored" }, "a second event about it changes nothing");
    t.match(await s.read(id), { amount_refunded_minor: 400 });
    t.equal(await s.count("payment_ledger_entries"), 4, "capture and refund posted once each");
  }),
);

t.test("a refund completed by the provider's webhook cancels its resolution job in the same transaction", (t) =>
  forEachDialectConfig(t, "refund job cancelled by webhook", async (t, config) => {
    const s = await startServer(t, config);
    const { id } = await s.intent({ amount_minor: 1000, currency: "EUR" }, sandboxTokens.visa);
    s.provider.injectFault("refund", "timeout_after");
    const refund = await call(`${s.server.url}/v1/refunds`, { key: s.key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 300 } });
    t.match(refund, { status: 202, body: { status: "pending" } });
    const refundJob = () =>
      s.db.selectFrom("jobs").select(["status"]).where("kind", "=", resolveRefundJobType.kind).where("key", "=", String(refund.body.id)).execute();
    t.same(await refundJob(), [{ status: "pending" }], "the pending refund has its resolution job");
    const event = lastEvent(s.provider, `re_${String(refund.body.id)}`);
    t.match((await deliverSandboxWebhook(s.hook, event, { secret })).body, { status: "processed", reason: "pending -> succeeded" });
    t.same(await refundJob(), [{ status: "cancelled" }], "the applied answer leaves the job nothing to do: it is cancelled");
  }),
);

t.test("events about unknown objects or of other types are stored and acknowledged, never applied", (t) =>
  forEachDialectConfig(t, "ignored", async (t, config) => {
    const s = await startServer(t, config);
    const dispute: SandboxEvent = { id: "evt_dispute_1", type: "dispute.created", created: Math.floor(Date.now() / 1000), data: { object: "dispute" } };
    t.match((await deliverSandboxWebhook(s.hook, dispute, { secret })).body, { status: "ignored" });
    const stranger: SandboxEvent = { id: "evt_stranger", type: "payment.captured", created: Math.floor(Date.now() / 1000), data: { object: "payment", reference: "pi_nobody_attempt_1", provider_payment_id: "x", status: "captured", amount_minor: 5, captured_minor: 5, currency: "EUR", decline_code: null } };
    t.match((await deliverSandboxWebhook(s.hook, stranger, { secret })).body, { status: "ignored", reason: "unknown provider reference" });
    const garbage = await deliverSandboxWebhook(s.hook, dispute, { secret, body: JSON.stringify({ hello: "world" }), signature: signWebhook(secret, JSON.stringify({ hello: "world" }), Date.now() / 1000) });
    t.match(garbage, { status: 400, body: { code: "webhook_payload_invalid" } }, "a signed body that is no event is refused");
    t.equal(await s.count("payment_provider_events"), 2);
  }),
);

t.test("the webhook inbox is append-only in the database", (t) =>
  forEachDialectConfig(t, "append-only", async (t, config) => {
    const s = await startServer(t, config);
    const dispute: SandboxEvent = { id: "evt_dispute_2", type: "dispute.created", created: Math.floor(Date.now() / 1000), data: { object: "dispute" } };
    await deliverSandboxWebhook(s.hook, dispute, { secret });
    await t.rejects(s.db.updateTable("payment_provider_events").set({ status: "processed" }).execute(), "UPDATE is refused");
    await t.rejects(s.db.deleteFrom("payment_provider_events").execute(), "DELETE is refused");
  }),
);


// Core level: the transition and its ledger posting commit together or not at all.
t.test("the transition and its ledger posting commit in one transaction: a failing posting leaves neither", (t) =>
  forEachDialect(t, "atomic", async (t, db) => {
    const { runtime, provider } = paymentsRuntime(t, db);
    const created = await runtime.runPromise(createMerchant({ name: "Atomic shop", scopes: ["payments:write"], actor: "system:test" }));
    const merchant = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write"] };
    const intent = await runtime.runPromise(createIntent(merchant, { amountMinor: 800, currency: "EUR" }));
    await runtime.runPromise(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    // Occupy the capture's ledger source so the posting fails inside the webhook's transaction.
    const blockedAt = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
    await db.db.transaction().execute(async (tx) => {
      await tx.insertInto("payment_ledger_transactions").values({ id: "blocker", source: `payment_intent:${intent.id}:capture`, merchant_id: created.merchant.id, reverses: null, created_at: blockedAt }).execute();
      await tx
        .insertInto("payment_ledger_entries")
        .values([1, -1].map((sign, i) => ({ id: `blocker-${i}`, transaction_id: "blocker", merchant_id: created.merchant.id, account: `merchant:${created.merchant.id}:blocker-${i}`, amount_minor: sign, currency: "EUR", created_at: blockedAt })))
        .execute();
    });
    const event = lastEvent(provider, attemptRef(intent.id));
    const receiver = makeSandboxWebhookReceiver({ secrets: [secret] });
    const body = JSON.stringify(event);
    const opened = await Effect.runPromise(receiver.open({ rawBody: body, signatureHeader: signWebhook(secret, body, Date.now() / 1000), now: new Date() }));
    const exit = await runtime.runPromiseExit(processProviderEvent(opened));
    t.ok(Exit.isFailure(exit) && Cause.isDie(exit.cause), "the failed posting fails the whole event");
    const stored = await db.db.selectFrom("payment_intents").select(["status", "version"]).where("id", "=", intent.id).executeTakeFirstOrThrow();
    t.match(stored, { status: "processing" }, "the transition rolled back with it");
    t.equal((await db.db.selectFrom("payment_provider_events").selectAll().execute()).length, 0, "and so did the inbox row: the provider will deliver again");
    t.equal((await db.db.selectFrom("payment_attempts").select("status").where("intent_id", "=", intent.id).executeTakeFirstOrThrow()).status, "unknown");
  }),
);
