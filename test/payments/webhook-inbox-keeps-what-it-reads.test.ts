/**
 * Spec, Payment service: the verified webhook inbox stores each provider event once; card data and
 * personal details are never stored (the platform holds tokens only). A provider's payload may carry
 * billing details and more than the module acts on: the inbox keeps only the fields the core reads
 * (the payment or refund fields, a dispute's object), never the body as received. SQLite and Postgres.
 */
import t from "tap";
import { deliverSandboxWebhook } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";

const secret = "whsec_inbox_fields_secret";
const personal = { name: "Ada Customer", email: "ada@example.com", address: { line1: "1 Private Road", postal_code: "12345" } };

t.test("the webhook inbox keeps only the fields the core reads, never the provider's whole payload", (t) =>
  forEachDialectConfig(t, "inbox fields", async (t, config) => {
    const { server } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider(), webhookSecret: secret })] });
    const hook = `${server.url}/v1/webhooks/provider`;
    const created = Math.floor(Date.now() / 1000);
    const events = [
      {
        id: "evt_inbox_payment",
        type: "payment.captured",
        created,
        data: { object: "payment", reference: "pi_unknown_attempt_1", provider_payment_id: "sbx_pay_x", status: "captured", amount_minor: 1000, captured_minor: 1000, currency: "EUR", decline_code: null, billing_details: personal },
        request: { ip: "198.51.100.7" },
      },
      {
        id: "evt_inbox_dispute",
        type: "dispute.created",
        created,
        data: { object: { id: "dp_inbox", payment: "sbx_pay_x", amount_minor: 1000, currency: "EUR", reason: "fraudulent", status: "needs_response", evidence: { customer: personal } } },
      },
      { id: "evt_inbox_other", type: "customer.updated", created, data: { object: "customer", ...personal } },
    ];
    for (const event of events) t.equal((await deliverSandboxWebhook(hook, event as never, { secret })).status, 200, event.type);
    const rows = await server.core.database.db.selectFrom("payment_provider_events").select(["provider_event_id", "payload"]).orderBy("provider_event_id").execute();
    t.equal(rows.length, 3);
    const stored = new Map(rows.map((r) => [String(r.provider_event_id), typeof r.payload === "string" ? r.payload : JSON.stringify(r.payload)]));
    for (const [id, payload] of stored) {
      t.notMatch(payload, /Ada Customer|ada@example\.com|Private Road|12345|198\.51\.100\.7/, `${id}: no personal details`);
    }
    t.match(stored.get("evt_inbox_payment"), /pi_unknown_attempt_1/, "the payment fields read are kept");
    t.match(stored.get("evt_inbox_dispute"), /dp_inbox/, "the dispute object read is kept");
  }),
);
