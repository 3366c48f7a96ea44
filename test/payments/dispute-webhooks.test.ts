/**
 * Provider dispute events arrive through the verified webhook inbox and land in the merchant's
 * read-only disputes projection, once, in provider-time order — on SQLite and Postgres.
 */
import t from "tap";
import { deliverSandboxWebhook } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";

const secret = "whsec_dispute_test_secret";

const post = async (url: string, key: string, idempotencyKey: string, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Idempotency-Key": idempotencyKey, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
};

const disputeEvent = (id: string, type: string, createdSeconds: number, payment: string, status: string) => ({
  id,
  type,
  created: createdSeconds,
  data: { object: { id: "dp_webhook_1", payment, amount_minor: 2500, currency: "EUR", reason: "fraudulent", status } },
});

t.test("dispute webhooks project into the merchant's disputes once and never move backwards", (t) =>
  forEachDialectConfig(t, "dispute webhooks", async (t, config) => {
    const provider = makeSandboxProvider();
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider, webhookSecret: secret })] });
    const { api_key: key } = await createMerchantWithKey(server.core.runtime, {
      name: "Disputed shop",
      scopes: ["payments:write", "ledger:read"],
    });
    const intent = await post(`${server.url}/v1/payment-intents`, key, "d-1", { amount_minor: 2500, currency: "EUR" });
    await post(`${server.url}/v1/payment-intents/${String(intent.id)}/confirm`, key, "d-2", { payment_method: sandboxTokens.visa });
    const row = await server.core.database.db
      .selectFrom("payment_intents")
      .select("provider_payment_id")
      .where("id", "=", String(intent.id))
      .executeTakeFirstOrThrow();
    const payment = String(row.provider_payment_id);
    const hook = `${server.url}/v1/webhooks/provider`;
    const now = Math.floor(Date.now() / 1000);
    const created = disputeEvent("evt_d1", "dispute.created", now - 60, payment, "needs_response");
    const updated = disputeEvent("evt_d2", "dispute.updated", now - 30, payment, "under_review");
    // Newer first, then the older one late, then a replay of the newer one.
    t.equal((await deliverSandboxWebhook(hook, updated as never, { secret })).status, 200);
    t.equal((await deliverSandboxWebhook(hook, created as never, { secret })).status, 200);
    t.equal((await deliverSandboxWebhook(hook, updated as never, { secret })).status, 200);
    const list = await fetch(`${server.url}/v1/disputes`, { headers: { Authorization: `Bearer ${key}` } });
    t.equal(list.status, 200);
    const body = (await list.json()) as { data: Array<Record<string, unknown>> };
    t.equal(body.data.length, 1, "one dispute however many deliveries");
    t.match(body.data[0], { status: "under_review" }, "the late, older event did not move it back");
    const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes: ["ledger:read"] });
    const foreign = await fetch(`${server.url}/v1/disputes`, { headers: { Authorization: `Bearer ${other.api_key}` } });
    t.same(((await foreign.json()) as { data: unknown[] }).data, [], "another merchant sees none of it");
  }),
);
