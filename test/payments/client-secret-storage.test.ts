/**
 * Spec (Payment service, Authentication 5): "Secrets and payment tokens are never cached or
 * logged"; (1) credentials are "hashed where applicable". Creating an intent is idempotent
 * (Endpoints: "Required; merchant-scoped, payload hashed"), yet no row of any table — the
 * idempotency record included — holds its client secret in clear; a replay of the creation
 * answers the same intent with a usable secret (a fresh one, which replaces the first) —
 * SQLite and Postgres.
 */
import t from "tap";
import type { Kysely } from "kysely";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey, newMerchant, paymentsRuntime } from "./support.js";
import { createIntentWithClientSecret, reissueClientSecret } from "../../core/payments/ClientView.js";
import { forEachDialect } from "../support/databases.js";

/** The names of the tables of which some row contains `needle`. */
const tablesHolding = async (db: Kysely<any>, needle: string): Promise<string[]> => {
  const found: string[] = [];
  for (const table of await db.introspection.getTables()) {
    const source = table.schema === undefined ? db : db.withSchema(table.schema);
    const rows = await source.selectFrom(table.name).selectAll().execute();
    const text = JSON.stringify(rows, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
    if (text.includes(needle)) found.push(table.name);
  }
  return found;
};

t.test("no table holds a client secret in clear, and a replayed creation still answers a usable secret", (t) =>
  forEachDialectConfig(t, "client secret never stored", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Secret shop", scopes: ["payments:write"] });
    const db = server.core.database.db as Kysely<any>;
    const idempotencyKey = freshKey();
    const create = () => call(`${server.url}/v1/payment-intents`, { key, idempotencyKey, body: { amount_minor: 1250, currency: "EUR" } });

    const created = await create();
    t.equal(created.status, 201);
    const id = String(created.body.id);
    const secret = String(created.body.client_secret);
    t.match(secret, new RegExp(`^${id}_secret_`));
    t.same(await tablesHolding(db, secret.slice(secret.indexOf("_secret_"))), [], "no row holds the secret (its random part) in clear");
    t.equal((await db.selectFrom("idempotency_keys").select("key").execute()).length, 1, "the creation was recorded under its key");

    const replay = await create();
    t.equal(replay.status, 201);
    t.equal(replay.headers.get("idempotent-replayed"), "true");
    t.equal(replay.body.id, id, "the same intent, not a second one");
    t.equal((await db.selectFrom("payment_intents").select("id").execute()).length, 1);
    const again = String(replay.body.client_secret);
    t.match(again, new RegExp(`^${id}_secret_`), "the replay answers a client secret");
    t.same(await tablesHolding(db, again.slice(again.indexOf("_secret_"))), [], "nor is the replayed one stored in clear");

    const seen = await call(`${server.url}/v1/payment-intents/${id}`, { key: again });
    t.match(seen, { status: 200, body: { id, object: "payment_intent_client_view" } }, "the replayed secret works");
    const confirmed = await call(`${server.url}/v1/payment-intents/${id}/confirm`, { key: again, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    t.match(confirmed, { status: 200, body: { status: "succeeded" } });
    t.equal((await call(`${server.url}/v1/payment-intents/${id}`, { key: secret })).status, 401, "the replaced secret no longer works");

    const other = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey, body: { amount_minor: 99, currency: "EUR" } });
    t.match(other, { status: 422, body: { code: "idempotency_key_reused" } }, "the key stays bound to its request");
  }),
);

t.test("commands are audited: minting a new client secret (which revokes the previous one) is recorded with actor and reason, never the secret", (t) =>
  forEachDialect(t, "client secret reissue audited", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run);
    const { intent, clientSecret } = await run(createIntentWithClientSecret(merchant, { amountMinor: 700, currency: "EUR" }));
    const reissued = await run(reissueClientSecret(merchant, intent.id));
    t.not(reissued, clientSecret);
    const rows = await db.db
      .selectFrom("payment_audit_log")
      .select(["action", "actor", "reason", "data"])
      .where("subject_type", "=", "payment_intent")
      .where("subject_id", "=", intent.id)
      .execute();
    const reissue = rows.filter((row) => row.action === "payment_intent.client_secret_reissued");
    t.equal(reissue.length, 1, "the reissue is audited once");
    t.match(reissue[0], { actor: `merchant:${merchant.merchantId}/key:${merchant.keyId}` });
    t.ok(String(reissue[0]?.reason).length > 0, "with a reason");
    const text = JSON.stringify(rows);
    t.notOk(text.includes(reissued.slice(reissued.indexOf("_secret_"))) || text.includes(clientSecret.slice(clientSecret.indexOf("_secret_"))), "no secret in the audit log");
  }),
);
