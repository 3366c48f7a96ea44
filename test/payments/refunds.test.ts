/**
 * Refunds (spec rule 5): partial refunds are allowed; completed and pending refunds together
 * never exceed the captured amount — also with 20 parallel refund requests of different keys
 * over HTTP (Postgres: real parallel connections and a row lock) — and a lost provider answer
 * leaves the refund pending (202), still counted against what can be refunded. A retry under the
 * same Idempotency-Key after a failure resumes the refund it made: the provider refunds once. A
 * refund left pending is settled by the job scheduled with it, sending it again under its own
 * reference, or opens an exception once the ambiguity window has passed.
 */
import { Effect } from "effect";
import t from "tap";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import { resolveRefund, resolveRefundJob } from "../../core/payments/ResolveRefund.js";
import { resolveRefundJobType } from "../../core/payments/ResolveRefundJobType.js";
import { runningJob } from "../worker/fixtures.js";
import { clockAhead } from "../support/clockAhead.js";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { forEachDialect } from "../support/databases.js";
import { refuseUpdates } from "../support/refuseUpdates.js";
import { call, capturedIntent, freshKey, newMerchant, paymentsRuntime, startPaymentsServer } from "./support.js";

t.test("partial refunds are allowed up to the captured amount and no further", (t) =>
  forEachDialect(t, "partial refunds", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const intent = await run(createIntent(merchant, { amountMinor: 1000, currency: "EUR" }));
    t.match(await attempt(createRefund(merchant, { intentId: intent.id, amountMinor: 1 })), { ok: false, error: { code: "payment_intent_unexpected_state" } }, "nothing captured yet");
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.visa }));
    t.match(await run(createRefund(merchant, { intentId: intent.id, amountMinor: 300 })), { status: "succeeded", amountMinor: 300 });
    t.match(await run(createRefund(merchant, { intentId: intent.id, amountMinor: 600 })), { status: "succeeded" });
    t.match(await attempt(createRefund(merchant, { intentId: intent.id, amountMinor: 101 })), {
      ok: false,
      error: { code: "refund_exceeds_captured", refundableMinor: 100 },
    });
    t.match(await attempt(createRefund(merchant, { intentId: intent.id, amountMinor: 0 })), { ok: false, error: { code: "validation_failed" } });
    t.match(await run(createRefund(merchant, { intentId: intent.id, amountMinor: 100 })), { status: "succeeded" });
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 1000);
  }),
);

t.test("a refund whose provider answer is lost stays pending and still counts against the refundable amount", (t) =>
  forEachDialect(t, "pending refund", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 500, "USD");
    provider.injectFault("refund", "timeout_after");
    const pending = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 400 }));
    t.equal(pending.status, "pending", "never guessed");
    t.match(await attempt(createRefund(merchant, { intentId: intent.id, amountMinor: 101 })), { ok: false, error: { code: "refund_exceeds_captured", refundableMinor: 100 } });
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 0, "only completed refunds count as refunded");
    const ledger = await db.db.selectFrom("payment_ledger_entries").selectAll().execute();
    t.equal(ledger.length, 2, "only the capture is posted");
  }),
);

t.test("20 parallel refunds with different keys never refund more than was captured", (t) =>
  forEachDialectConfig(t, "parallel refunds", async (t, _config, dialect) => {
    const { server, merchant, provider } = await startPaymentsServer(t, dialect, { latencyMs: 10 });
    const { api_key: key } = await merchant();
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 1000, currency: "EUR" } });
    const id = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 150 } })),
    );
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 422 && a.body.code === "refund_exceeds_captured");
    t.equal(created.length, 6, "six refunds of 150 fit in 1000");
    t.equal(refused.length, 14, "every other request is refused");
    const read = await call(`${server.url}/v1/payment-intents/${id}`, { key });
    t.equal(read.body.amount_refunded_minor, 900);
    t.equal(provider.payments()[0]?.refundedMinor, 900, "the provider refunded exactly as much");
    const rest = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: id, amount_minor: 100 } });
    t.equal(rest.status, 201, "the remainder can still be refunded");
  }),
);

t.test("a retry under the same Idempotency-Key after the refund's recording failed resumes it: the provider refunds once", (t) =>
  forEachDialect(t, "refund resumed by its key", async (t, db) => {
    const { run, attempt, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    const restore = await refuseUpdates(db, "payment_refunds");
    await t.rejects(run(createRefund(merchant, { intentId: intent.id, amountMinor: 400, requestKey: "refund-key-1" })), "the recording failed after the provider refunded");
    t.equal(provider.payments()[0]?.refundedMinor, 400, "the provider has refunded");
    await restore();
    const resumed = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 400, requestKey: "refund-key-1" }));
    t.equal(resumed.status, "succeeded");
    t.equal(provider.payments()[0]?.refundedMinor, 400, "the provider refunded once, not twice");
    const rows = await db.db.selectFrom("payment_refunds").selectAll().execute();
    t.equal(rows.length, 1, "one refund");
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 400);
    const again = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 400, requestKey: "refund-key-1" }));
    t.same([again.id, again.status], [resumed.id, "succeeded"], "a resolved refund is answered as it stands");
    t.equal(provider.calls.filter((c) => c.operation === "refund").length, 2, "nothing sent for a resolved refund");
    t.match(await attempt(createRefund(merchant, { intentId: intent.id, amountMinor: 300, requestKey: "refund-key-1" })), {
      ok: false,
      error: { code: "idempotency_key_reused" },
    }, "the key stays bound to its refund");
    t.match(await run(createRefund(merchant, { intentId: intent.id, amountMinor: 300, requestKey: "refund-key-2" })), { status: "succeeded" }, "another key is another refund");
  }),
);

t.test("POST /v1/refunds retried under its Idempotency-Key after a failed recording answers the one refund", (t) =>
  forEachDialectConfig(t, "refund retried over HTTP", async (t, _config, dialect) => {
    const { server, merchant, provider } = await startPaymentsServer(t, dialect);
    const { api_key: key } = await merchant();
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 1000, currency: "EUR" } });
    const id = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    const restore = await refuseUpdates(server.core.database, "payment_refunds");
    const refundKey = freshKey();
    const failed = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: refundKey, body: { payment_intent_id: id, amount_minor: 250 } });
    t.equal(failed.status, 500, "the recording failed");
    await restore();
    const retried = await call(`${server.url}/v1/refunds`, { key, idempotencyKey: refundKey, body: { payment_intent_id: id, amount_minor: 250 } });
    t.equal(retried.status, 201);
    t.equal(retried.body.status, "succeeded");
    t.equal(provider.payments()[0]?.refundedMinor, 250, "refunded once");
    const read = await call(`${server.url}/v1/payment-intents/${id}`, { key });
    t.equal(read.body.amount_refunded_minor, 250);
  }),
);

t.test("a refund whose answer was lost is settled by the job scheduled with it, under its own reference, once", (t) =>
  forEachDialect(t, "refund resolution job", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    provider.injectFault("refund", "timeout_after");
    const pending = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 400 }));
    t.equal(pending.status, "pending");
    const jobs = await db.db.selectFrom("jobs").select(["key", "status"]).where("kind", "=", resolveRefundJobType.kind).execute();
    t.same(jobs, [{ key: pending.id, status: "pending" }], "scheduled with the refund");
    await run(resolveRefundJob.run(runningJob({ kind: resolveRefundJobType.kind, key: pending.id, payload: { refund_id: pending.id } })));
    const row = await db.db.selectFrom("payment_refunds").select(["status", "reference"]).where("id", "=", pending.id).executeTakeFirstOrThrow();
    t.same(row, { status: "succeeded", reference: pending.reference });
    t.equal(provider.payments()[0]?.refundedMinor, 400, "refunded once: the reference was sent again, not a new refund");
    t.same(provider.calls.filter((c) => c.operation === "refund").map((c) => c.reference), [pending.reference, pending.reference]);
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 400);
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 4, "capture and refund posted");
    t.same(await run(resolveRefund(pending.id)), { _tag: "NothingToResolve" }, "running it again changes nothing");
  }),
);

t.test("a refund the provider never answers is tried again inside the window, then opens one exception, and is still settled later", (t) =>
  forEachDialect(t, "refund ambiguity window", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    provider.injectFault("refund", "timeout_before");
    const pending = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 250 }));
    t.equal(provider.payments()[0]?.refundedMinor, 0, "the provider never received it");
    provider.injectFault("refund", "timeout_before");
    t.match(await run(resolveRefund(pending.id)), { _tag: "RecheckScheduled" }, "inside the window: asked again later");
    const jobs = await db.db.selectFrom("jobs").select("key").where("kind", "=", resolveRefundJobType.kind).execute();
    t.equal(jobs.length, 2, "the first try and a re-check are durable jobs");
    provider.injectFault("refund", "timeout_before");
    t.same(await run(Effect.withClock(resolveRefund(pending.id), clockAhead(16 * 60_000))), { _tag: "ExceptionOpened", opened: true }, "past the window: a human looks");
    const exceptions = await db.db.selectFrom("payment_reconciliation_exceptions").select(["kind", "subject_type", "subject_id", "provider_object"]).execute();
    t.same(exceptions, [{ kind: "unresolved", subject_type: "refund", subject_id: pending.id, provider_object: pending.reference }]);
    t.equal((await db.db.selectFrom("payment_refunds").select("status").where("id", "=", pending.id).executeTakeFirstOrThrow()).status, "pending", "never guessed");
    t.same(await run(resolveRefund(pending.id)), { _tag: "Resolved", status: "succeeded" }, "the provider answers at last");
    t.equal(provider.payments()[0]?.refundedMinor, 250, "once");
  }),
);

t.test("a refund answered at once cancels its resolution job", (t) =>
  forEachDialect(t, "refund job cancelled", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    const refund = await run(createRefund(merchant, { intentId: intent.id, amountMinor: 100 }));
    const jobs = await db.db.selectFrom("jobs").select(["key", "status"]).where("kind", "=", resolveRefundJobType.kind).execute();
    t.same(jobs, [{ key: refund.id, status: "cancelled" }]);
  }),
);

t.test("ten racing requests under one refund key make one refund, refunded once (Postgres: parallel connections)", (t) =>
  forEachDialect(t, "refund key race", async (t, db) => {
    const { run, provider } = paymentsRuntime(t, db, makeSandboxProvider({ latencyMs: 5 }));
    const { merchant, intent } = await capturedIntent(run, 1000, "EUR");
    const answers = await Promise.all(Array.from({ length: 10 }, () => run(createRefund(merchant, { intentId: intent.id, amountMinor: 300, requestKey: "raced-key" }))));
    t.equal(new Set(answers.map((a) => a.id)).size, 1, "every request answers the same refund");
    t.ok(answers.every((a) => a.status === "succeeded"));
    const rows = await db.db.selectFrom("payment_refunds").select("id").execute();
    t.equal(rows.length, 1, "one refund row");
    t.equal(provider.payments()[0]?.refundedMinor, 300, "the provider refunded once");
    t.equal((await run(getIntent(merchant, intent.id))).amountRefundedMinor, 300);
    t.equal((await db.db.selectFrom("payment_ledger_entries").selectAll().execute()).length, 4, "one refund posting");
  }),
);
