/**
 * A key revokes only keys whose scopes it holds, as with rotation (security audit S7; spec:
 * "Merchant service credentials are scoped"; docs/decisions.md: a key "can only grant scopes it
 * holds"). A narrow `keys:write` key revoking the merchant's broader key answers 403 and the
 * broader key keeps working; keys within its own scopes it still revokes.
 */
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";

const full = ["payments:write", "refunds:write", "ledger:read", "keys:write"];

t.test("a key cannot revoke a key holding scopes it lacks (403), and revokes keys within its own scopes", (t) =>
  forEachDialectConfig(t, "revoke within own scopes", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const owner = await createMerchantWithKey(server.core.runtime, { name: "Keys shop", scopes: full });
    const keys = `${server.url}/v1/api-keys`;
    const narrow = await call(keys, { key: owner.api_key, body: { scopes: ["keys:write"] } });
    const sibling = await call(keys, { key: owner.api_key, body: { scopes: ["keys:write"] } });
    const narrowKey = String(narrow.body.api_key);

    const refused = await call(`${keys}/${owner.key_id}/revoke`, { key: narrowKey, idempotencyKey: freshKey(), body: { reason: "x" } });
    t.match(refused, { status: 403, body: { code: "forbidden" } }, "the broader key is not revoked");
    t.match(String(refused.body.detail), /payments:write, refunds:write, ledger:read/, "the problem names the scopes the caller lacks");
    t.match(await call(`${server.url}/v1/payment-intents`, { key: owner.api_key, idempotencyKey: freshKey(), body: { amount_minor: 100, currency: "EUR" } }), { status: 201 }, "the broader key still works");
    const audited = await server.core.database.db.selectFrom("payment_audit_log").select("action").where("subject_id", "=", owner.key_id).where("action", "=", "api_key.revoked").execute();
    t.same(audited, [], "no revocation is audited");

    t.match(await call(`${keys}/${String(sibling.body.id)}/revoke`, { key: narrowKey, idempotencyKey: freshKey(), body: { reason: "rotated out" } }), { status: 204 }, "a key within its scopes is revoked");
    t.match(await call(keys, { key: String(sibling.body.api_key) }), { status: 401 }, "and stops working");
    t.match(await call(`${keys}/${String(narrow.body.id)}/revoke`, { key: owner.api_key, idempotencyKey: freshKey(), body: { reason: "leaked" } }), { status: 204 }, "the broader key revokes the narrow one");
  }),
);
