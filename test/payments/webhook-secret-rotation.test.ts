/**
 * A merchant's webhook signing secret rotates with overlap (spec, Payment service,
 * Authentication 5: "secrets are ... rotated with overlapping keys"; conventions: "several `v1`
 * values may be present during secret rotation"). POST /v1/webhook-endpoints/:id/rotate-secret
 * answers a new secret once; until the overlap ends every delivery carries one `v1=` per live
 * secret, so a receiver holding either verifies it; once the overlap ends (or with overlap 0)
 * only the new secret signs and the old one never again. A second rotation during an overlap
 * drops the oldest secret (at most two are live). Rotations are audited with actor and reason;
 * another merchant's endpoint is 404. Against a real receiver on 127.0.0.1, on both dialects.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { verifyMerchantWebhookSignature } from "../../adapters/payments/webhooks/FetchMerchantWebhookSender.js";
import { deliverMerchantWebhook, merchantWebhookDeliveryJobKind } from "../../core/payments/MerchantWebhookDelivery.js";
import { createWebhookEndpoint, rotateWebhookEndpointSecret } from "../../core/payments/WebhookEndpointCommands.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { clockAhead } from "../support/clockAhead.js";
import { forEachDialect, type HasTeardown } from "../support/databases.js";
import { forEachDialectConfig, startReferenceServer } from "../hosts/support.js";
import { call, freshKey, newMerchant, paymentsRuntime, pendingWebhookDelivery } from "./support.js";
import { eventually, runningJob } from "../worker/fixtures.js";
import { startHookReceiver } from "./hookReceiver.js";

const scopes = ["payments:write", "refunds:write", "ledger:read", "webhooks:write"];

/** One POST the receiver got: its signature header and raw body. */
export interface ReceivedHook {
  readonly signature: string | undefined;
  readonly raw: string;
}

/** A merchant's receiver that records every POST (answering 200); tests verify with the secrets they hold. */
export const startRecordingReceiver = async (t: HasTeardown) => {
  const received: ReceivedHook[] = [];
  const base = await startHookReceiver(t, ({ headers, raw }) => {
    received.push({ signature: headers["webhook-signature"] as string | undefined, raw });
    return 200;
  });
  return { base, received };
};

/** True when `hook` verifies with `secret`, checked at the time its own header states. */
export const verifiesWith = (hook: ReceivedHook | undefined, secret: string): boolean => {
  const t = Number(/^t=(\d+)/.exec(hook?.signature ?? "")?.[1] ?? "0");
  return verifyMerchantWebhookSignature({ secret, header: hook?.signature, rawBody: hook?.raw ?? "", nowSeconds: t });
};

t.test("rotating a webhook signing secret answers a new secret; deliveries during the overlap verify with both, then only with the new one", (t) =>
  forEachDialectConfig(t, "secret rotation", async (t, config) => {
    const receiver = await startRecordingReceiver(t);
    const { server, logText } = await startReferenceServer(t, config, { modules: [makePaymentsModule({ provider: makeSandboxProvider() })] });
    const { api_key: key, merchant_id } = await createMerchantWithKey(server.core.runtime, { name: "Rotating shop", scopes });
    const other = await createMerchantWithKey(server.core.runtime, { name: "Other shop", scopes });
    const created = await call(`${server.url}/v1/webhook-endpoints`, { key, body: { url: `${receiver.base}/hooks` } });
    const endpointId = String(created.body.id);
    const first = String(created.body.secret);
    const rotateUrl = `${server.url}/v1/webhook-endpoints/${endpointId}/rotate-secret`;

    // Bad input and foreign endpoints answer problem+json, and rotate nothing.
    const foreign = await call(rotateUrl, { key: other.api_key, body: {} });
    t.equal(foreign.status, 404, "another merchant's endpoint is 404");
    t.match(foreign.headers.get("content-type"), /application\/problem\+json/);
    t.match(await call(`${server.url}/v1/webhook-endpoints/00000000-0000-7000-8000-000000000000/rotate-secret`, { key, body: {} }), { status: 404 });
    const noScope = await createMerchantWithKey(server.core.runtime, { name: "No hooks", scopes: ["payments:write"] });
    t.match(await call(rotateUrl, { key: noScope.api_key, body: {} }), { status: 403 });
    for (const overlap of [-1, 7 * 24 * 3600 + 1]) {
      const bad = await call(rotateUrl, { key, body: { overlap_seconds: overlap } });
      t.equal(bad.status, 422, `overlap ${overlap} is refused`);
      t.match(bad.headers.get("content-type"), /application\/problem\+json/);
    }
    t.match(await call(rotateUrl, { key, body: { overlap_seconds: 1.5 } }), { status: 422 }, "whole seconds only");

    const before = Date.now();
    const rotated = await call(rotateUrl, { key, body: { overlap_seconds: 3600, reason: "secret pasted in a support ticket" } });
    t.equal(rotated.status, 200);
    t.match(rotated.body, { id: endpointId, object: "webhook_endpoint", url: `${receiver.base}/hooks` });
    const second = String(rotated.body.secret);
    t.match(second, /^whsec_[A-Za-z0-9_-]{43}$/);
    t.not(second, first, "a new secret");
    const expiresAt = Date.parse(String(rotated.body.previous_secret_expires_at));
    t.ok(expiresAt >= before + 3600_000 - 1000 && expiresAt <= Date.now() + 3600_000 + 1000, "the old secret lives for the overlap asked");
    const listed = await call(`${server.url}/v1/webhook-endpoints`, { key });
    t.notOk(listed.text.includes(second) || listed.text.includes(first), "the new secret is shown once, in the rotation's answer");
    const defaulted = await call(`${server.url}/v1/webhook-endpoints`, { key: other.api_key, body: { url: `${receiver.base}/other` } });
    const defaultRotation = await call(`${server.url}/v1/webhook-endpoints/${String(defaulted.body.id)}/rotate-secret`, { key: other.api_key, body: {} });
    const defaultExpiry = Date.parse(String(defaultRotation.body.previous_secret_expires_at)) - Date.now();
    t.ok(defaultExpiry > 23 * 3600_000 && defaultExpiry <= 24 * 3600_000, "the default overlap is one day");

    // During the overlap a delivery carries one v1 per live secret: a receiver holding either verifies it.
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 2500, currency: "EUR" } });
    const intentId = String(intent.body.id);
    await call(`${server.url}/v1/payment-intents/${intentId}/confirm`, { key, idempotencyKey: freshKey(), body: { payment_method: sandboxTokens.visa } });
    await eventually(() => receiver.received.length >= 1, 30_000, "the payment's delivery");
    const during = receiver.received[0];
    t.equal((during?.signature?.match(/v1=/g) ?? []).length, 2, "two v1 values");
    t.ok(verifiesWith(during, second), "verifies with the new secret");
    t.ok(verifiesWith(during, first), "and with the old one during the overlap");

    // A second rotation during the overlap drops the oldest secret: at most two are live.
    const third = String((await call(rotateUrl, { key, body: { overlap_seconds: 3600 } })).body.secret);
    await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: intentId, amount_minor: 100 } });
    await eventually(() => receiver.received.length >= 2, 30_000, "the refund's delivery");
    const afterSecond = receiver.received[1];
    t.ok(verifiesWith(afterSecond, third) && verifiesWith(afterSecond, second), "the newest two sign");
    t.notOk(verifiesWith(afterSecond, first), "the oldest secret was dropped by the second rotation");

    // Overlap 0 ends the previous secret at once: from then on only the new one signs.
    const cut = await call(rotateUrl, { key, body: { overlap_seconds: 0, reason: "rotate again, no overlap" } });
    t.equal(cut.status, 200);
    t.equal(cut.body.previous_secret_expires_at, null, "no previous secret is kept");
    const fourth = String(cut.body.secret);
    await call(`${server.url}/v1/refunds`, { key, idempotencyKey: freshKey(), body: { payment_intent_id: intentId, amount_minor: 200 } });
    await eventually(() => receiver.received.length >= 3, 30_000, "the second refund's delivery");
    const after = receiver.received[2];
    t.equal((after?.signature?.match(/v1=/g) ?? []).length, 1, "one v1 value");
    t.ok(verifiesWith(after, fourth), "verifies with the new secret");
    for (const old of [first, second, third]) t.notOk(verifiesWith(after, old), "never with an old one");

    const audit = await server.core.database.db
      .selectFrom("payment_audit_log")
      .select(["action", "actor", "reason", "subject_id", "data"])
      .where("action", "=", "webhook_endpoint.secret_rotated")
      .where("merchant_id", "=", merchant_id)
      .orderBy("id")
      .execute();
    t.equal(audit.length, 3, "each rotation is audited once (refused ones are not)");
    t.match(audit[0], { actor: new RegExp(merchant_id), reason: "secret pasted in a support ticket", subject_id: endpointId });
    t.equal(audit[1]?.reason, "merchant request", "a default reason");
    t.equal(audit[2]?.reason, "rotate again, no overlap");
    const auditText = JSON.stringify(audit);
    for (const secret of [first, second, third, fourth]) {
      t.notOk(auditText.includes(secret), "no secret in the audit log");
      t.notOk(logText().includes(secret), "nor in the logs");
    }
  }),
);

t.test("once the overlap ends a delivery is signed with the new secret only, and the old one never again", (t) =>
  forEachDialect(t, "overlap expiry", async (t, db) => {
    const receiver = await startRecordingReceiver(t);
    const { run } = paymentsRuntime(t, db, makeSandboxProvider(), { allowLoopbackHttpWebhooks: true });
    const merchant = await newMerchant(run, ["webhooks:write"]);
    const { endpoint, secret: old } = await run(createWebhookEndpoint(merchant, { url: `${receiver.base}/hooks` }));
    const { secret: fresh, previousSecretExpiresAt } = await run(rotateWebhookEndpointSecret(merchant, endpoint.id, { overlapSeconds: 3600, reason: "leak" }));
    const overlapLeftMs = (previousSecretExpiresAt?.getTime() ?? 0) - Date.now();
    /** Delivers one new event to the endpoint with the clock `aheadMs` in the future; answers what the receiver got. */
    const deliverAt = async (aheadMs: number) => {
      const delivery = pendingWebhookDelivery(endpoint);
      await run(Effect.flatMap(WebhookEndpoints, (store) => store.insertDelivery(delivery)));
      const job = runningJob({ kind: merchantWebhookDeliveryJobKind, key: delivery.id, payload: { delivery_id: delivery.id } });
      t.equal(await run(Effect.withClock(deliverMerchantWebhook(delivery.id, job), clockAhead(aheadMs))), "succeeded");
      return receiver.received.at(-1);
    };
    const during = await deliverAt(overlapLeftMs - 60_000);
    t.ok(verifiesWith(during, fresh) && verifiesWith(during, old), "a minute before the end of the overlap both verify");
    for (const aheadMs of [overlapLeftMs + 1_000, 2 * 24 * 3600_000]) {
      const after = await deliverAt(aheadMs);
      t.equal((after?.signature?.match(/v1=/g) ?? []).length, 1, "one v1 value");
      t.ok(verifiesWith(after, fresh), "the new secret verifies");
      t.notOk(verifiesWith(after, old), "the old one does not, ever again");
    }
  }),
);

t.test("the database keeps the previous secret with its expiry, never equal to the current one", (t) =>
  forEachDialect(t, "previous secret constraint", async (t, db) => {
    const { run } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run, ["webhooks:write"]);
    const { endpoint, secret } = await run(createWebhookEndpoint(merchant, { url: "https://merchant.example/hooks" }));
    const other = `whsec_${"x".repeat(43)}`;
    const refused = async (set: Record<string, unknown>, what: string) => {
      const failed = await db.db
        .updateTable("payment_webhook_endpoints")
        .set(set)
        .where("id", "=", endpoint.id)
        .execute()
        .then(
          () => false,
          () => true,
        );
      t.ok(failed, what);
    };
    const expiry = db.dialect === "sqlite" ? new Date(Date.now() + 60_000).toISOString() : new Date(Date.now() + 60_000);
    await refused({ previous_signing_secret: other }, "a previous secret without an expiry is refused");
    await refused({ previous_secret_expires_at: expiry }, "an expiry without a previous secret is refused");
    await refused({ previous_signing_secret: secret, previous_secret_expires_at: expiry }, "the previous secret equal to the current one is refused");
    await refused({ previous_signing_secret: "whsec_short", previous_secret_expires_at: expiry }, "a short previous secret is refused");
    await db.db.updateTable("payment_webhook_endpoints").set({ previous_signing_secret: other, previous_secret_expires_at: expiry }).where("id", "=", endpoint.id).execute();
    const row = await db.db.selectFrom("payment_webhook_endpoints").select(["previous_signing_secret"]).where("id", "=", endpoint.id).executeTakeFirstOrThrow();
    t.equal(row.previous_signing_secret, other, "a pair with its expiry is kept");
  }),
);
