/**
 * Spec, Payment service: reconciliation "finds a mismatch → exception opened → ... resolved by
 * humans"; Authentication 2: "Finance operator: ... controlled exception resolution". A settlement
 * row we do not recognise opens an exception of no merchant (a platform item). Platform operators
 * (PLATFORM_OPERATORS) list such items (keyset pages) and resolve them by an acknowledgement with a
 * reason, under an Idempotency-Key, audited with the operator as actor; one winner when operators
 * resolve at once (Postgres: parallel connections). A merchant key still gets 404 for them, an
 * operator gets 404 for a merchant's exception, anyone else 403 — SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { Effect } from "effect";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { reconcileSettlementFile } from "../../core/payments/SettlementReconciliation.js";
import { MerchantId } from "../../core/payments/model/Ids.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, hostSecret, startReferenceServer } from "../hosts/support.js";
import type { HasTeardown } from "../support/databases.js";
import { anException, call, freshKey } from "./support.js";

const operator = "01900000-0000-7000-8000-0000000e0001";
const secondOperator = "01900000-0000-7000-8000-0000000e0002";
const someoneElse = "01900000-0000-7000-8000-0000000e0003";
const header = "type,reference,provider_payment_id,amount_minor,currency,status,settled_at";
const today = () => new Date().toISOString().slice(0, 10);

const startServer = async (t: HasTeardown, config: Parameters<typeof startReferenceServer>[1]) => {
  const provider = makeSandboxProvider();
  const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider, platformOperators: [operator, secondOperator] })] });
  const runtime = server.core.runtime;
  const url = (path: string) => `${server.url}${path}`;
  /** Settles `count` rows whose references we never issued: one platform exception each. */
  const unknownRows = async (count: number, tag: string) => {
    const rows = Array.from({ length: count }, (_, i) => `payment,pi_unknown_${tag}_${i}_attempt_1,prov_${tag}_${i},${100 + i},EUR,captured,${new Date().toISOString()}`);
    await runtime.runPromise(reconcileSettlementFile(today(), [header, ...rows].join("\n") + "\n"));
  };
  const token = (userId: string) => mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  return { server, runtime, url, unknownRows, token, db: server.core.database.db };
};

t.test("platform reconciliation exceptions are listed and resolved by platform operators only, audited, and stay 404 for merchants", (t) =>
  forEachDialectConfig(t, "platform exceptions", async (t, config) => {
    const s = await startServer(t, config);
    await s.unknownRows(3, "list");
    const operatorToken = await s.token(operator);
    const { api_key: merchantKey, merchant_id: merchantOf } = await createMerchantWithKey(s.runtime, { name: "Other shop", scopes: ["payments:write", "ledger:read"] });

    const list = s.url("/v1/operator/reconciliation-exceptions");
    const first = await call(`${list}?limit=2&status=open`, { key: operatorToken });
    t.equal(first.status, 200);
    const firstPage = first.body.data as Array<Record<string, unknown>>;
    t.equal(firstPage.length, 2, "a keyset page of two");
    t.ok(firstPage.every((e) => e.merchant_id === null && e.status === "open"), "platform items only");
    t.equal(typeof first.body.next_cursor, "string");
    const second = await call(`${list}?limit=2&status=open&cursor=${encodeURIComponent(String(first.body.next_cursor))}`, { key: operatorToken });
    t.equal((second.body.data as unknown[]).length, 1, "the rest on the next page");
    t.equal(second.body.next_cursor, null);

    t.equal((await call(list, { key: merchantKey })).status, 403, "a merchant key is not an operator");
    t.equal((await call(list, { key: await s.token(someoneElse) })).status, 403, "nor is any other user");
    const badStatus = await call(`${list}?status=lost`, { key: operatorToken });
    t.equal(badStatus.status, 400, "a bad status is a 400");
    t.match(badStatus.headers.get("content-type"), /application\/problem\+json/);
    t.equal((await call(`${list}?cursor=not-a-cursor`, { key: operatorToken })).status, 400, "a bad cursor is a 400");

    const id = String(firstPage[0]?.id);
    const resolveUrl = s.url(`/v1/operator/reconciliation-exceptions/${id}/resolve`);
    const resolve = (key: string, body: unknown, idempotencyKey: string = freshKey()) => call(resolveUrl, { key, idempotencyKey, body });

    t.equal((await resolve(operatorToken, {})).status, 422, "a reason is required");
    t.equal((await resolve(operatorToken, { reason: "   " })).status, 422, "a blank reason is refused");
    const unkeyed = await call(resolveUrl, { key: operatorToken, body: { reason: "ok" } });
    t.equal(unkeyed.status, 400, "an Idempotency-Key is required");
    t.match(unkeyed.headers.get("content-type"), /application\/problem\+json/);
    t.equal((await resolve(merchantKey, { reason: "mine?" })).status, 403, "a merchant key cannot resolve here");
    t.equal((await call(s.url(`/v1/reconciliation-exceptions/${id}`), { key: merchantKey })).status, 404, "a merchant key still gets 404 for a platform item");
    const finance = await s.runtime.runPromise(
      Effect.flatMap(ApiKeys, (keys) => keys.issue({ keyId: randomUUID(), merchantId: merchantOf, scopes: ["ledger:read", "reconciliation:write"], now: new Date() })),
    );
    const merchantResolve = await call(s.url(`/v1/reconciliation-exceptions/${id}/resolve`), {
      key: finance.secret,
      idempotencyKey: freshKey(),
      body: { resolution: "acknowledgement", reason: "mine?" },
    });
    t.equal(merchantResolve.status, 404, "a merchant's finance key cannot resolve a platform item either");

    const key = freshKey();
    const resolved = await resolve(operatorToken, { reason: "row of a test charge on the provider's side" }, key);
    t.match(resolved, { status: 200, body: { id, merchant_id: null, status: "resolved", resolution: { kind: "acknowledgement", ledger_source: null, actor: `operator:${operator}` } } });
    const replay = await resolve(operatorToken, { reason: "row of a test charge on the provider's side" }, key);
    t.same([replay.status, replay.body], [200, resolved.body], "the same key answers the stored resolution");
    t.match(await resolve(operatorToken, { reason: "again" }), { status: 409, body: { code: "reconciliation_exception_resolved" } }, "never resolved twice");
    t.match((await resolve(operatorToken, { reason: "again" })).headers.get("content-type"), /application\/problem\+json/);

    const audit = await s.db
      .selectFrom("payment_audit_log")
      .select(["actor", "merchant_id", "reason"])
      .where("action", "=", "reconciliation_exception.resolved")
      .where("subject_id", "=", id)
      .execute();
    t.same(audit, [{ actor: `operator:${operator}`, merchant_id: null, reason: "row of a test charge on the provider's side" }], "audited with the operator as actor");
    const outcomes = await s.db.selectFrom("payment_reconciliation_outcomes").select(["action", "actor", "ledger_source"]).where("exception_id", "=", id).orderBy("action", "desc").execute();
    t.same(outcomes.map((o) => [o.action, o.ledger_source]), [["resolved", null], ["opened", null]], "an acknowledgement posts nothing");
    t.same(((await call(`${list}?status=resolved`, { key: operatorToken })).body.data as Array<Record<string, unknown>>).map((e) => e.id), [id]);
    t.equal((await call(s.url(`/v1/operator/reconciliation-exceptions/no-such-exception/resolve`), { key: operatorToken, idempotencyKey: freshKey(), body: { reason: "x" } })).status, 404);
  }),
);

t.test("an operator cannot resolve a merchant's exception: it is not a platform item (404)", (t) =>
  forEachDialectConfig(t, "merchant exception", async (t, config) => {
    const s = await startServer(t, config);
    const { merchant_id } = await createMerchantWithKey(s.runtime, { name: "Finance shop", scopes: ["payments:write", "ledger:read"] });
    // A merchant's exception, as the ambiguity window opens one.
    const exception = anException({ merchantId: MerchantId.make(merchant_id), kind: "unresolved", settlementWindow: "ambiguity_window" });
    await s.runtime.runPromise(Effect.flatMap(ReconciliationRepository, (repository) => repository.insertException(exception)));
    const operatorToken = await s.token(operator);
    const list = await call(s.url("/v1/operator/reconciliation-exceptions"), { key: operatorToken });
    t.same(list.body.data, [], "a merchant's exception is not listed here");
    const answer = await call(s.url("/v1/operator/reconciliation-exceptions/${exception.id}/resolve"), { key: operatorToken, idempotencyKey: freshKey(), body: { reason: "not mine" } });
    t.equal(answer.status, 404);
  }),
);

t.test("a platform exception is resolved once when operators resolve it at once (Postgres: parallel connections)", (t) =>
  forEachDialectConfig(t, "racing platform resolutions", async (t, config) => {
    const s = await startServer(t, config);
    await s.unknownRows(1, "race");
    const tokens = [await s.token(operator), await s.token(secondOperator)];
    const [exception] = (await call(s.url("/v1/operator/reconciliation-exceptions"), { key: tokens[0]! })).body.data as Array<Record<string, unknown>>;
    const id = String(exception?.id);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(s.url(`/v1/operator/reconciliation-exceptions/${id}/resolve`), { key: tokens[i % 2]!, idempotencyKey: freshKey(), body: { reason: `acknowledged ${i}` } }),
      ),
    );
    t.equal(answers.filter((r) => r.status === 200).length, 1, "one resolution wins");
    t.same(answers.filter((r) => r.status !== 200).map((r) => r.status), Array.from({ length: 7 }, () => 409), "the others are 409");
    const outcomes = await s.db.selectFrom("payment_reconciliation_outcomes").select("action").where("exception_id", "=", id).where("action", "=", "resolved").execute();
    t.equal(outcomes.length, 1, "one resolution recorded");
  }),
);

t.test("a platform exception is resolved only by an acknowledgement, in the database", (t) =>
  forEachDialectConfig(t, "platform acknowledgement constraint", async (t, config, dialect) => {
    const s = await startServer(t, config);
    await s.unknownRows(1, "db");
    const [row] = await s.db.selectFrom("payment_reconciliation_exceptions").select("id").where("merchant_id", "is", null).execute();
    const id = String(row?.id);
    const at = dialect === "sqlite" ? new Date().toISOString() : new Date();
    await t.rejects(
      s.db.updateTable("payment_reconciliation_exceptions").set({ status: "resolved", resolved_at: at, resolution: JSON.stringify({ kind: "adjustment", ledger_source: "reconciliation:x:adjustment" }) } as never).where("id", "=", id).execute(),
      "an adjustment of a platform item is refused",
    );
    await t.resolves(
      s.db.updateTable("payment_reconciliation_exceptions").set({ status: "resolved", resolved_at: at, resolution: JSON.stringify({ kind: "acknowledgement", ledger_source: null }) } as never).where("id", "=", id).execute(),
      "an acknowledgement is accepted",
    );
  }),
);
