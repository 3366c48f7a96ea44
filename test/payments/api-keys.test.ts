/**
 * Merchant API keys: the secret is shown once and stored only as a hash; verification needs
 * the exact secret; a revoked or expired key stops working while another live key of the same
 * merchant keeps working (rotation with overlap); unknown scopes are refused at creation.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { authenticateApiKey, createMerchant, issueMerchantKey, revokeMerchantKey } from "../../core/payments/Merchants.js";
import { ApiKeys } from "../../ports/payments/ApiKeys.js";
import { forEachDialect } from "../support/databases.js";
import { paymentsRuntime } from "./support.js";
import { MerchantId } from "../../core/payments/model/Ids.js";

t.test("an API key is stored only as a hash and verifies to its merchant principal", (t) =>
  forEachDialect(t, "hashed keys", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Shop", scopes: ["payments:write"], actor: "system:test" }));
    t.match(created.apiKey, /^sk_test_[A-Za-z0-9_-]{43}$/);
    const rows = await db.db.selectFrom("payment_api_keys").selectAll().execute();
    t.equal(rows.length, 1);
    t.notOk(JSON.stringify(rows).includes(created.apiKey.slice(8)), "the secret is not stored");
    t.same(await run(authenticateApiKey(created.apiKey)), { kind: "merchant", merchantId: created.merchant.id, keyId: created.keyId, scopes: ["payments:write"] });
    const tampered = created.apiKey.slice(0, -1) + (created.apiKey.endsWith("A") ? "B" : "A");
    t.match(await attempt(authenticateApiKey(tampered)), { ok: false, error: { _tag: "Unauthorized", code: "invalid_token" } });
    const audit = await db.db.selectFrom("payment_audit_log").selectAll().execute();
    t.notOk(JSON.stringify(audit).includes(created.apiKey), "the audit log never holds the secret");
  }),
);

t.test("keys rotate with overlap: a revoked or expired key is refused while a live one keeps working", (t) =>
  forEachDialect(t, "rotation", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Shop", scopes: ["ledger:read"], actor: "system:test" }));
    const now = new Date();
    const second = await run(Effect.flatMap(ApiKeys, (keys) => keys.issue({ keyId: randomUUID(), merchantId: created.merchant.id, scopes: ["ledger:read"], now })));
    const expiring = await run(
      Effect.flatMap(ApiKeys, (keys) => keys.issue({ keyId: randomUUID(), merchantId: created.merchant.id, scopes: ["ledger:read"], now, expiresAt: new Date(now.getTime() - 1000) })),
    );
    t.match(await attempt(authenticateApiKey(created.apiKey)), { ok: true }, "both keys work during the overlap");
    t.match(await attempt(authenticateApiKey(second.secret)), { ok: true });
    t.match(await attempt(authenticateApiKey(expiring.secret)), { ok: false }, "an expired key is refused");
    const revoked = await run(Effect.flatMap(ApiKeys, (keys) => keys.revoke({ merchantId: created.merchant.id, keyId: created.keyId, now })));
    t.ok(revoked);
    t.match(await attempt(authenticateApiKey(created.apiKey)), { ok: false, error: { code: "invalid_token" } });
    t.match(await attempt(authenticateApiKey(second.secret)), { ok: true, value: { keyId: second.keyId } });
  }),
);

t.test("a merchant cannot be created with an unknown scope or an empty name", (t) =>
  forEachDialect(t, "merchant validation", async (t, db) => {
    const { attempt } = paymentsRuntime(t, db);
    t.match(await attempt(createMerchant({ name: "Shop", scopes: ["payments:admin"], actor: "system:test" })), { ok: false, error: { code: "validation_failed" } });
    t.match(await attempt(createMerchant({ name: "  ", scopes: [], actor: "system:test" })), { ok: false, error: { code: "validation_failed" } });
    t.equal((await db.db.selectFrom("payment_merchants").selectAll().execute()).length, 0);
  }),
);

t.test("issuing and revoking keys is audited with actor and reason, and never records the secret", (t) =>
  forEachDialect(t, "key lifecycle", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const created = await run(createMerchant({ name: "Shop", scopes: ["ledger:read"], actor: "system:test" }));
    const next = await run(issueMerchantKey({ merchantId: created.merchant.id, scopes: ["ledger:read", "refunds:write"], actor: "system:operator" }));
    t.match(await attempt(authenticateApiKey(next.apiKey)), { ok: true, value: { scopes: ["ledger:read", "refunds:write"] } });
    await run(revokeMerchantKey({ merchantId: created.merchant.id, keyId: created.keyId, actor: "system:operator", reason: "rotation" }));
    t.match(await attempt(authenticateApiKey(created.apiKey)), { ok: false });
    t.match(await attempt(revokeMerchantKey({ merchantId: created.merchant.id, keyId: created.keyId, actor: "system:operator", reason: "again" })), {
      ok: false,
      error: { code: "not_found" },
    });
    t.match(await attempt(issueMerchantKey({ merchantId: MerchantId.make("no-such-merchant"), scopes: [], actor: "system:operator" })), { ok: false, error: { code: "not_found" } });
    const log = await db.db.selectFrom("payment_audit_log").select(["action", "actor", "reason"]).orderBy("id").execute();
    t.same(log.map((r) => r.action), ["merchant.created", "api_key.issued", "api_key.revoked"]);
    t.match(log[2], { actor: "system:operator", reason: "rotation" });
    t.notOk(JSON.stringify(log).includes(next.apiKey), "no secret in the audit log");
  }),
);
