/**
 * Merchant API key routes: a key with `keys:write` issues keys (the secret shown once, only its
 * hash stored), lists them (never a secret or hash), revokes them (the key stops working at
 * once), and rotates them with overlap (old and new work until the overlap ends). A key cannot
 * grant scopes it lacks; a key without `keys:write` is 403; another merchant's key is 404.
 */
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";

const admin = ["payments:write", "refunds:write", "ledger:read", "keys:write"];

t.test("issue, list, revoke and rotate API keys over HTTP", (t) =>
  forEachDialectConfig(t, "key management", async (t, config) => {
    const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const owner = await createMerchantWithKey(server.core.runtime, { name: "Keys shop", scopes: admin });
    const url = `${server.url}/v1/api-keys`;

    const issued = await call(url, { key: owner.api_key, body: { scopes: ["ledger:read"] } });
    t.equal(issued.status, 201);
    t.match(issued.body, { object: "api_key", scopes: ["ledger:read"], revoked_at: null, expires_at: null });
    const secret = String(issued.body.api_key);
    t.match(secret, /^sk_test_[A-Za-z0-9_-]{43}$/);
    t.equal(issued.body.prefix, secret.slice(0, 12), "a short display prefix only");
    const stored = await server.core.database.db.selectFrom("payment_api_keys").selectAll().execute();
    t.notOk(JSON.stringify(stored).includes(secret.slice(12)), "only the hash is stored");
    t.match(await call(`${server.url}/v1/balance-transactions`, { key: secret }), { status: 200 }, "the new key works with its scope");
    t.match(await call(`${server.url}/v1/payment-intents`, { key: secret, idempotencyKey: freshKey(), body: { amount_minor: 1, currency: "EUR" } }), {
      status: 403,
    }, "and only with its scopes");

    const listed = await call(url, { key: owner.api_key });
    t.equal(listed.status, 200);
    const keys = listed.body.data as Array<Record<string, unknown>>;
    t.equal(keys.length, 2);
    t.notOk(listed.text.includes(secret.slice(12)) || listed.text.includes(owner.api_key.slice(12)), "listing never shows a secret");
    t.notOk("api_key" in (keys[0] as object) || "secret_hash" in (keys[0] as object));

    const escalate = await call(url, { key: secret, body: { scopes: ["ledger:read"] } });
    t.match(escalate, { status: 403, body: { code: "forbidden" } }, "a key without keys:write cannot issue keys");
    const limited = await call(url, { key: owner.api_key, body: { scopes: ["keys:write"] } });
    const grant = await call(url, { key: String(limited.body.api_key), body: { scopes: ["payments:write"] } });
    t.match(grant, { status: 403 }, "a key cannot grant a scope it does not hold");
    t.match(await call(url, { key: owner.api_key, body: { scopes: ["payments:admin"] } }), { status: 403 }, "an unknown scope is one the key does not hold");
    t.match(await call(url, { key: owner.api_key, body: { scopes: ["ledger:read"], expires_at: "2001-01-01T00:00:00Z" } }), { status: 422 }, "an expiry in the past is refused");

    const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes: admin });
    const foreign = await call(`${url}/${String(issued.body.id)}/revoke`, { key: other.api_key, idempotencyKey: freshKey(), body: {} });
    t.match(foreign, { status: 404 }, "another merchant's key is 404");
    const revoked = await call(`${url}/${String(issued.body.id)}/revoke`, { key: owner.api_key, idempotencyKey: freshKey(), body: { reason: "leaked in a log" } });
    t.equal(revoked.status, 204);
    t.match(await call(`${server.url}/v1/balance-transactions`, { key: secret }), { status: 401 }, "a revoked key stops working at once");
    const audit = await server.core.database.db.selectFrom("payment_audit_log").selectAll().where("subject_id", "=", String(issued.body.id)).execute();
    t.match(audit.map((a) => [a.action, a.reason]), [["api_key.issued", "key issued"], ["api_key.revoked", "leaked in a log"]]);

    const rotated = await call(`${url}/${String(limited.body.id)}/rotate`, { key: owner.api_key, body: { overlap_seconds: 3600 } });
    t.equal(rotated.status, 201);
    t.match(rotated.body, { scopes: ["keys:write"], previous: { id: limited.body.id, revoked_at: null } });
    t.type((rotated.body.previous as Record<string, unknown>).expires_at, "string", "the old key now expires");
    t.match(await call(url, { key: String(limited.body.api_key) }), { status: 200 }, "the old key works during the overlap");
    t.match(await call(url, { key: String(rotated.body.api_key) }), { status: 200 }, "and so does the new one");
    const cut = await call(`${url}/${String(rotated.body.id)}/rotate`, { key: owner.api_key, body: { overlap_seconds: 0 } });
    t.equal(cut.status, 201);
    t.match(await call(url, { key: String(rotated.body.api_key) }), { status: 401 }, "overlap 0 ends the old key at once");
    t.match(await call(url, { key: String(cut.body.api_key) }), { status: 200 });
    t.match(await call(`${url}/${String(issued.body.id)}/rotate`, { key: owner.api_key, body: {} }), { status: 404 }, "a revoked key cannot be rotated");
    t.match(await call(`${url}/${String(limited.body.id)}/rotate`, { key: owner.api_key, body: { overlap_seconds: -1 } }), { status: 422 });

    for (const s of [secret, String(limited.body.api_key), String(rotated.body.api_key), String(cut.body.api_key), owner.api_key]) {
      t.notOk(logText().includes(s.slice(8)), "no key secret in the logs");
    }
  }),
);
