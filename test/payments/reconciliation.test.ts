/**
 * Reconciliation (spec rules 3, 10, 12 and the exceptions queue), SQLite and Postgres:
 *   - the ambiguity-resolution window: a processing intent whose reference the provider never
 *     saw is re-checked by a durable job while the window is open, and once it has passed one
 *     `unresolved` exception is opened (never a guess, never retried forever);
 *   - the exceptions queue over HTTP: list (keyset pages), show with audited outcomes, resolve
 *     by a linked ledger reversal, an adjustment or an acknowledgement — never an edit; a
 *     merchant key reads with `ledger:read` and resolves with `reconciliation:write`; another
 *     merchant's exception is 404; resolved exceptions and outcomes refuse changes in the database.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import "../../adapters/sql/payments/index.js";
import { confirmIntent, reconcileIntentJobKind } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { reconcileIntentWithinWindow } from "../../core/payments/ReconciliationWindow.js";
import { reconcileSettlementDay } from "../../core/payments/SettlementReconciliation.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { forEachDialect, type HasTeardown } from "../support/databases.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { anException, call, freshKey, paymentsRuntime, sandboxPaymentsModule } from "./support.js";
import { clockAhead } from "../support/clockAhead.js";



t.test("an ambiguous outcome the provider never saw is re-checked inside the window, then opens one exception", (t) =>
  forEachDialect(t, "ambiguity window", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Window shop", scopes: ["payments:write"], actor: "system:test" }));
    const merchant = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write"] };
    const intent = await run(createIntent(merchant, { amountMinor: 990, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutBefore }));
    const early = await run(reconcileIntentWithinWindow(intent.id));
    t.equal(early._tag, "RecheckScheduled", "inside the window: asked again later, not guessed");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key", "status"]).where("kind", "=", reconcileIntentJobKind).execute();
    t.equal(jobs.length, 2, "the first check and a re-check are durable jobs");
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").selectAll().execute()).length, 0);
    const late = await run(Effect.withClock(reconcileIntentWithinWindow(intent.id), clockAhead(16 * 60_000)));
    t.same(late, { _tag: "ExceptionOpened", opened: true }, "past the window: an exception instead of retrying forever");
    const again = await run(Effect.withClock(reconcileIntentWithinWindow(intent.id), clockAhead(17 * 60_000)));
    t.same(again, { _tag: "ExceptionOpened", opened: false }, "opened once");
    const rows = await db.db.selectFrom("payment_reconciliation_exceptions").select(["provider_object", "settlement_window", "kind", "subject_id", "status", "merchant_id"]).execute();
    t.same(rows, [
      { provider_object: `pi_${intent.id}_attempt_1`, settlement_window: "ambiguity_window", kind: "unresolved", subject_id: intent.id, status: "open", merchant_id: created.merchant.id },
    ]);
    t.equal((await db.db.selectFrom("payment_intents").select("status").where("id", "=", intent.id).executeTakeFirstOrThrow()).status, "processing", "the intent is still never guessed");
    const events = await db.db.selectFrom("outbox").select(["type", "tenant_id"]).where("type", "=", "ReconciliationMismatchFound").execute();
    t.same(events, [{ type: "ReconciliationMismatchFound", tenant_id: created.merchant.id }]);
  }),
);

t.test("inside the window a reference the provider did see resolves the intent normally", (t) =>
  forEachDialect(t, "resolved in window", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Window shop", scopes: ["payments:write"], actor: "system:test" }));
    const merchant = { kind: "merchant" as const, merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write"] };
    const intent = await run(createIntent(merchant, { amountMinor: 990, currency: "EUR" }));
    await run(confirmIntent(merchant, intent.id, { paymentMethod: sandboxTokens.timeoutAfter }));
    const late = await run(Effect.withClock(reconcileIntentWithinWindow(intent.id), clockAhead(60 * 60_000)));
    t.match(late, { _tag: "Resolved", outcome: "succeeded" }, "a found charge is applied, however late");
    t.equal((await db.db.selectFrom("payment_reconciliation_exceptions").selectAll().execute()).length, 0);
  }),
);

// ---- the exceptions queue over HTTP ----

const secret = "whsec_reconciliation_tests_0001";
const startServer = async (t: HasTeardown, config: Parameters<typeof startReferenceServer>[1]) => {
  const provider = makeSandboxProvider();
  const { server } = await startReferenceServer(t, config, { modules: [sandboxPaymentsModule(provider, [secret])] });
  const runtime = server.core.runtime;
  const merchant = async () => {
    const { merchant_id, api_key } = await createMerchantWithKey(runtime, { name: "Finance shop", scopes: ["payments:write", "refunds:write", "ledger:read"] });
    // Until the lead adds the scope to merchantScopes, issue the finance key through the port.
    const finance = await runtime.runPromise(
      Effect.flatMap(ApiKeys, (keys) => keys.issue({ keyId: randomUUID(), merchantId: merchant_id, scopes: ["ledger:read", "reconciliation:write"], now: new Date() })),
    );
    return { merchantId: merchant_id, key: api_key, financeKey: finance.secret };
  };
  const db = server.core.database.db;
  const url = (path: string) => `${server.url}${path}`;
  return { server, provider, runtime, merchant, db, url };
};

const today = () => new Date().toISOString().slice(0, 10);

/** Pays `amounts` and settles them with an amount mismatch on each: one exception per payment. */
const exceptionsFor = async (s: Awaited<ReturnType<typeof startServer>>, key: string, amounts: ReadonlyArray<number>) => {
  const ids: string[] = [];
  for (const amount of amounts) {
    const created = await call(s.url("/v1/payment-intents"), { key, idempotencyKey: freshKey(), body: { amount_minor: amount, currency: "EUR" } });
    const id = String(created.body.id);
    await call(s.url(`/v1/payment-intents/${id}/confirm`), { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    s.provider.injectSettlementFault(`pi_${id}_attempt_1`, { amountMinor: amount - 1 });
    ids.push(id);
  }
  await s.runtime.runPromise(reconcileSettlementDay(today()));
  return ids;
};

t.test("the exceptions queue: keyset pages, details with outcomes, merchant scoping", (t) =>
  forEachDialectConfig(t, "queue", async (t, config) => {
    const s = await startServer(t, config);
    const a = await s.merchant();
    const b = await s.merchant();
    await exceptionsFor(s, a.key, [100, 200, 300]);
    const first = await call(s.url("/v1/reconciliation-exceptions?limit=2"), { key: a.key });
    t.equal(first.status, 200);
    const page1 = first.body.data as Array<Record<string, unknown>>;
    t.equal(page1.length, 2);
    t.ok(typeof first.body.next_cursor === "string");
    const second = await call(s.url(`/v1/reconciliation-exceptions?limit=2&cursor=${String(first.body.next_cursor)}`), { key: a.key });
    const page2 = second.body.data as Array<Record<string, unknown>>;
    t.equal(page2.length, 1);
    t.equal(second.body.next_cursor, null);
    t.equal(new Set([...page1, ...page2].map((e) => e.id)).size, 3, "no row twice");
    t.match(page1[0], { object: "reconciliation_exception", kind: "amount", status: "open", merchant_id: a.merchantId, settlement_window: today() });
    const id = String(page1[0]?.id);
    const detail = await call(s.url(`/v1/reconciliation-exceptions/${id}`), { key: a.key });
    t.match(detail.body, { id, outcomes: [{ action: "opened", actor: "system:reconciliation" }] });
    t.equal((await call(s.url(`/v1/reconciliation-exceptions/${id}`), { key: b.key })).status, 404, "another merchant's exception is 404");
    t.same((await call(s.url("/v1/reconciliation-exceptions"), { key: b.key })).body.data, [], "and never listed");
    t.equal((await call(s.url("/v1/reconciliation-exceptions?cursor=bogus"), { key: a.key })).status, 400, "an edited cursor is 400");
    const noRead = await createMerchantWithKey(s.runtime, { name: "No read", scopes: ["payments:write"] });
    t.equal((await call(s.url("/v1/reconciliation-exceptions"), { key: noRead.api_key })).status, 403, "ledger:read is needed to read");
  }),
);

t.test("resolving is an audited ledger reversal or adjustment, never an edit", (t) =>
  forEachDialectConfig(t, "resolve", async (t, config) => {
    const s = await startServer(t, config);
    const a = await s.merchant();
    const b = await s.merchant();
    const [reversed, adjusted, acknowledged] = await exceptionsFor(s, a.key, [1000, 2000, 3000]);
    const list = (await call(s.url("/v1/reconciliation-exceptions"), { key: a.key })).body.data as Array<Record<string, unknown>>;
    const exceptionOf = (intentId: string | undefined) => String(list.find((e) => e.subject_id === intentId)?.id);
    const resolve = (id: string, key: string, body: Record<string, unknown>) =>
      call(s.url(`/v1/reconciliation-exceptions/${id}/resolve`), { key, idempotencyKey: freshKey(), body });

    const reversal = { resolution: "reversal", ledger_source: `payment_intent:${reversed}:capture`, reason: "provider settled less; reverse and re-post" };
    t.equal((await resolve(exceptionOf(reversed), a.key, reversal)).status, 403, "a key without reconciliation:write cannot resolve");
    t.equal((await resolve(exceptionOf(reversed), b.financeKey, reversal)).status, 404, "another merchant's finance key cannot see it");
    const done = await resolve(exceptionOf(reversed), a.financeKey, reversal);
    t.equal(done.status, 200);
    t.match(done.body, { status: "resolved", resolution: { kind: "reversal", reverses: `payment_intent:${reversed}:capture`, ledger_source: `reconciliation:${exceptionOf(reversed)}:reversal` } });
    const posted = await s.db.selectFrom("payment_ledger_transactions").select(["source", "reverses"]).where("reverses", "is not", null).execute();
    t.same(posted, [{ source: `reconciliation:${exceptionOf(reversed)}:reversal`, reverses: `payment_intent:${reversed}:capture` }], "a linked reversal");
    const again = await resolve(exceptionOf(reversed), a.financeKey, { resolution: "acknowledgement", reason: "second thoughts" });
    t.match(again, { status: 409, body: { code: "reconciliation_exception_resolved" } }, "a resolution is never edited");
    const reverseTwice = await resolve(exceptionOf(adjusted), a.financeKey, reversal);
    t.equal(reverseTwice.status, 422, "the kernel ledger refuses a second reversal of the same transaction");
    const foreign = await resolve(exceptionOf(adjusted), a.financeKey, { resolution: "reversal", ledger_source: "payment_intent:someone-else:capture", reason: "x" });
    t.equal(foreign.status, 422, "only the merchant's own transactions can be reversed");

    const adjustment = await resolve(exceptionOf(adjusted), a.financeKey, { resolution: "adjustment", amount_minor: -1, reason: "provider settled 1 less" });
    t.match(adjustment, { status: 200, body: { status: "resolved", resolution: { kind: "adjustment", amount_minor: -1 } } });
    const ack = await resolve(exceptionOf(acknowledged), a.financeKey, { resolution: "acknowledgement", reason: "provider file corrected next day" });
    t.match(ack, { status: 200, body: { resolution: { kind: "acknowledgement", ledger_source: null } } });

    const entries = await s.db.selectFrom("payment_ledger_entries").select(["amount_minor", "currency"]).execute();
    t.equal(entries.reduce((sum, e) => sum + Number(e.amount_minor), 0), 0, "the ledger still balances to zero");
    const detail = await call(s.url(`/v1/reconciliation-exceptions/${exceptionOf(adjusted)}`), { key: a.financeKey });
    t.match(detail.body.outcomes, [{ action: "opened" }, { action: "resolved", reason: "provider settled 1 less", ledger_source: `reconciliation:${exceptionOf(adjusted)}:adjustment` }]);
    t.match(String((detail.body.outcomes as Array<Record<string, unknown>>)[1]?.actor), /^merchant:.*\/key:/, "the resolver is audited");
    const audit = await s.db.selectFrom("payment_audit_log").select(["action"]).where("action", "=", "reconciliation_exception.resolved").execute();
    t.equal(audit.length, 3);

    await t.rejects(s.db.updateTable("payment_reconciliation_exceptions").set({ status: "open", resolved_at: null, resolution: null }).where("id", "=", exceptionOf(reversed)).execute(), "the database refuses to reopen a resolved exception");
    await t.rejects(s.db.deleteFrom("payment_reconciliation_exceptions").execute(), "exceptions are never deleted");
    await t.rejects(s.db.updateTable("payment_reconciliation_outcomes").set({ reason: "rewritten" }).execute(), "outcomes are append-only");
  }),
);

t.test("resolving concurrently resolves once", (t) =>
  forEachDialectConfig(t, "concurrent resolve", async (t, config) => {
    const s = await startServer(t, config);
    const a = await s.merchant();
    const [intent] = await exceptionsFor(s, a.key, [500]);
    const list = (await call(s.url("/v1/reconciliation-exceptions"), { key: a.key })).body.data as Array<Record<string, unknown>>;
    const id = String(list[0]?.id);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(s.url(`/v1/reconciliation-exceptions/${id}/resolve`), {
          key: a.financeKey,
          idempotencyKey: freshKey(),
          body: i % 2 === 0 ? { resolution: "adjustment", amount_minor: -1, reason: `adjust ${i}` } : { resolution: "reversal", ledger_source: `payment_intent:${intent}:capture`, reason: `reverse ${i}` },
        }),
      ),
    );
    t.equal(answers.filter((r) => r.status === 200).length, 1, "one resolution wins");
    t.ok(answers.filter((r) => r.status !== 200).every((r) => r.status === 409), "the others are 409");
    const postings = await s.db.selectFrom("payment_ledger_transactions").select("source").where("source", "like", "reconciliation:%").execute();
    t.equal(postings.length, 1, "one resolution posting");
  }),
);

t.test("exceptions racing to reverse one ledger transaction: one linked reversal, the others refused as already reversed, never a 500 (Postgres: parallel connections)", (t) =>
  forEachDialectConfig(t, "racing reversals", async (t, config) => {
    const s = await startServer(t, config);
    const a = await s.merchant();
    const [intent] = await exceptionsFor(s, a.key, [700, 800, 900, 1000]);
    const list = (await call(s.url("/v1/reconciliation-exceptions"), { key: a.key })).body.data as Array<Record<string, unknown>>;
    t.equal(list.length, 4);
    const answers = await Promise.all(
      list.map((exception) =>
        call(s.url(`/v1/reconciliation-exceptions/${String(exception.id)}/resolve`), {
          key: a.financeKey,
          idempotencyKey: freshKey(),
          body: { resolution: "reversal", ledger_source: `payment_intent:${intent}:capture`, reason: "reverse the first capture" },
        }),
      ),
    );
    t.equal(answers.filter((r) => r.status === 200).length, 1, "one reversal wins");
    t.same(
      answers.filter((r) => r.status !== 200).map((r) => [r.status, r.body.code]),
      Array.from({ length: 3 }, () => [422, "reversal_target_invalid"]),
      "the others are refused as a second reversal",
    );
    const reversals = await s.db.selectFrom("payment_ledger_transactions").select("source").where("reverses", "is not", null).execute();
    t.equal(reversals.length, 1, "one linked reversal");
  }),
);

t.test("racing openings of one mismatch open it once and fail none (every unique rule of the table is an arbiter)", (t) =>
  forEachDialect(t, "racing openings", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const open = (providerObject: string) =>
      run(Effect.flatMap(ReconciliationRepository, (repository) => repository.insertException(anException({ providerObject, settlementWindow: "2026-11-28" }))));
    // On Postgres each opening runs on its own pooled connection: the two unique indexes of the
    // (provider object, window) pair (payments migrations 2 and 15) are checked concurrently.
    const rounds = 60;
    const results = await Promise.all(
      Array.from({ length: rounds }, (_, round) => Promise.allSettled(Array.from({ length: 4 }, () => open(`pi_race_${round}_attempt_1`)))),
    );
    const failures = results.flat().filter((r) => r.status === "rejected");
    t.same(failures.map((f) => String((f as PromiseRejectedResult).reason).slice(0, 200)), [], "no opening fails");
    t.same(
      results.map((round) => round.filter((r) => r.status === "fulfilled" && r.value === true).length),
      Array.from({ length: rounds }, () => 1),
      "exactly one opening of each mismatch wins",
    );
  }),
);
