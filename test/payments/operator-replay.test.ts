/**
 * Replay of a dead-lettered merchant webhook delivery needs two DIFFERENT platform operators
 * (dual control): one requests with a reason, another approves with a reason, and only then is
 * the delivery retried; the requester approving its own request is 409 (and the database refuses
 * it too); merchants and users who are not operators are 403; every step is audited with actor
 * and reason; two operators approving at once (Postgres, parallel HTTP) approve it once.
 * Operators list the dead deliveries of every merchant in keyset pages (403 for anyone else),
 * without payloads or secrets.
 */
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { makeSandboxProvider, sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { paymentsMigrations } from "../../adapters/sql/payments/migrations/index.js";
import { paymentsMigration0005DeadDeliveries } from "../../adapters/sql/payments/migrations/0005_payment_webhook_deliveries_dead_index.js";
import type { ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import type { HasTeardown } from "../support/databases.js";
import { forEachDialectConfig, hostSecret, startReferenceServer } from "../hosts/support.js";
import { call, freshKey } from "./support.js";
import { startHookReceiver } from "./hookReceiver.js";

// User ids are UUIDs; the names say who is who.
const alice = "01900000-0000-7000-8000-00000000a11c";
const bob = "01900000-0000-7000-8000-000000000b0b";
const carol = "01900000-0000-7000-8000-0000000ca201";
const mallory = "01900000-0000-7000-8000-0000000ba11e";
const operators = [alice, bob, carol];

/** A receiver that answers 500 until told otherwise (signatures are checked in merchant-webhooks.test.ts). */
const startReceiver = async (t: HasTeardown) => {
  const state = { fail: true, hits: 0 };
  const base = await startHookReceiver(t, () => {
    state.hits += 1;
    return state.fail ? 500 : 200;
  });
  return { url: `${base}/hook`, state };
};

const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  for (let i = 0; i < 300; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

// Until the lead lists migration 5 in paymentsMigrations, add it here; the first of a version wins.
const withDeadDeliveriesIndex = <P, R>(module: ModuleDefinition<P, R>): ModuleDefinition<P, R> => {
  const all = [...(module.migrations ?? paymentsMigrations), paymentsMigration0005DeadDeliveries];
  return { ...module, migrations: all.filter((m, i) => all.findIndex((n) => n.version === m.version) === i) };
};

/** A server whose one delivery is dead, and tokens for the operators. */
const deadDelivery = async (t: HasTeardown, config: Parameters<typeof startReferenceServer>[1]) => {
  const receiver = await startReceiver(t);
  const { server } = await startReferenceServer(t, config, {
    modules: [withDeadDeliveriesIndex(makePaymentsModule({ provider: makeSandboxProvider(), platformOperators: operators, merchantWebhookMaxAttempts: 2 }))],
  });
  const merchant = await createMerchantWithKey(server.core.runtime, { name: "Replay shop", scopes: ["payments:write", "webhooks:write"] });
  const endpoint = await call(`${server.url}/v1/webhook-endpoints`, { key: merchant.api_key, body: { url: receiver.url } });
  const intent = await call(`${server.url}/v1/payment-intents`, { key: merchant.api_key, idempotencyKey: freshKey(), body: { amount_minor: 900, currency: "EUR" } });
  await call(`${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`, {
    key: merchant.api_key,
    idempotencyKey: freshKey(),
    body: { payment_method: sandboxTokens.visa },
  });
  const deliveriesUrl = `${server.url}/v1/webhook-endpoints/${String(endpoint.body.id)}/deliveries`;
  const latest = async () => ((await call(deliveriesUrl, { key: merchant.api_key })).body.data as Array<Record<string, unknown>>)[0] ?? {};
  await eventually(async () => (await latest()).status === "dead", "a dead delivery");
  const token = (userId: string) => mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  /** Kills another delivery: a new payment while the receiver fails. */
  const another = async (): Promise<string> => {
    receiver.state.fail = true;
    // The newest delivery before this payment: the new one must be a different, later one.
    const previous = (await latest()).id;
    const next = await call(`${server.url}/v1/payment-intents`, { key: merchant.api_key, idempotencyKey: freshKey(), body: { amount_minor: 901, currency: "EUR" } });
    await call(`${server.url}/v1/payment-intents/${String(next.body.id)}/confirm`, {
      key: merchant.api_key,
      idempotencyKey: freshKey(),
      body: { payment_method: sandboxTokens.visa },
    });
    await eventually(async () => {
      const newest = await latest();
      return newest.id !== previous && newest.status === "dead" && (newest.attempts as unknown[]).length === 2;
    }, "another dead delivery");
    return String((await latest()).id);
  };
  return { server, receiver, merchant, endpointSecret: String(endpoint.body.secret), deliveryId: String((await latest()).id), latest, token, another };
};

t.test("a dead delivery is replayed only after a second, different operator approves", (t) =>
  forEachDialectConfig(t, "dual control", async (t, config) => {
    const { server, receiver, merchant, deliveryId, latest, token, another } = await deadDelivery(t, config);
    const requests = `${server.url}/v1/operator/webhook-deliveries/${deliveryId}/replay-requests`;
    const [aliceToken, bobToken, malloryToken] = await Promise.all([token(alice), token(bob), token(mallory)]);

    t.match(await call(requests, { key: merchant.api_key, idempotencyKey: freshKey(), body: { reason: "please" } }), { status: 403 }, "a merchant is not an operator");
    t.match(await call(requests, { key: malloryToken, idempotencyKey: freshKey(), body: { reason: "please" } }), { status: 403 }, "neither is any other user");
    t.match(await call(`${server.url}/v1/operator/webhook-deliveries/01900000-0000-7000-8000-000000000000/replay-requests`, { key: aliceToken, idempotencyKey: freshKey(), body: { reason: "x" } }), { status: 404 });
    t.match(await call(requests, { key: aliceToken, idempotencyKey: freshKey(), body: { reason: "" } }), { status: 422 }, "a reason is required");

    const requested = await call(requests, { key: aliceToken, idempotencyKey: freshKey(), body: { reason: "receiver fixed their TLS" } });
    t.equal(requested.status, 201);
    t.match(requested.body, { object: "webhook_replay_request", delivery_id: deliveryId, requested_by: alice, approved_by: null });
    t.match(await call(requests, { key: bobToken, idempotencyKey: freshKey(), body: { reason: "again" } }), { status: 409, body: { code: "replay_already_requested" } });
    const approve = `${requests}/${String(requested.body.id)}/approve`;
    t.match(await call(approve, { key: aliceToken, idempotencyKey: freshKey(), body: { reason: "I approve myself" } }), {
      status: 409,
      body: { code: "dual_control_same_operator" },
    }, "the same operator twice is 409");
    t.match(await latest(), { status: "dead" }, "nothing is replayed before a second operator approves");
    const hitsBefore = receiver.state.hits;

    receiver.state.fail = false;
    const approved = await call(approve, { key: bobToken, idempotencyKey: freshKey(), body: { reason: "confirmed with the merchant" } });
    t.equal(approved.status, 200);
    t.match(approved.body, { requested_by: alice, approved_by: bob, approval_reason: "confirmed with the merchant" });
    await eventually(async () => (await latest()).status === "succeeded", "the replayed delivery to succeed");
    const delivery = await latest();
    t.same((delivery.attempts as Array<Record<string, unknown>>).map((a) => a.status_code), [500, 500, 200], "the attempts history is kept");
    t.equal(receiver.state.hits, hitsBefore + 1);
    t.match(await call(approve, { key: await token(carol), idempotencyKey: freshKey(), body: { reason: "late" } }), {
      status: 409,
    }, "a replayed delivery cannot be approved again");

    const audit = await server.core.database.db
      .selectFrom("payment_audit_log")
      .select(["action", "actor", "reason"])
      .where("subject_id", "=", deliveryId)
      .orderBy("created_at")
      .execute();
    t.same(audit, [
      { action: "webhook_delivery.replay_requested", actor: `operator:${alice}`, reason: "receiver fixed their TLS" },
      { action: "webhook_delivery.replay_approved", actor: `operator:${bob}`, reason: "confirmed with the merchant" },
    ], "both steps audited with actor and reason");

    const row = { id: "manual-request", delivery_id: deliveryId, requested_by: alice, reason: "r", requested_at: new Date().toISOString() };
    await server.core.database.db.insertInto("payment_webhook_replay_requests").values(row).execute();
    await t.rejects(
      server.core.database.db
        .updateTable("payment_webhook_replay_requests")
        .set({ approved_by: alice, approval_reason: "self", approved_at: new Date().toISOString() })
        .where("id", "=", "manual-request")
        .execute(),
      "the database refuses an approval by the requester",
    );

    // Two operators approving the same request at once (parallel HTTP; real connections on Postgres).
    const second = await another();
    const secondRequests = `${server.url}/v1/operator/webhook-deliveries/${second}/replay-requests`;
    const open = await call(secondRequests, { key: aliceToken, idempotencyKey: freshKey(), body: { reason: "retry" } });
    receiver.state.fail = false;
    const carolToken = await token(carol);
    const answers = await Promise.all(
      [bobToken, carolToken, bobToken, carolToken].map((key) =>
        call(`${secondRequests}/${String(open.body.id)}/approve`, { key, idempotencyKey: freshKey(), body: { reason: "go" } }),
      ),
    );
    t.equal(answers.filter((a) => a.status === 200).length, 1, "one of parallel approvals wins");
    t.equal(answers.filter((a) => a.status === 409).length, 3, "the others conflict");
    await eventually(async () => (await latest()).status === "succeeded", "the second replay");
    const jobs = await server.core.database.db.selectFrom("jobs").select("status").where("key", "=", second).execute();
    t.same(jobs.map((j) => j.status).sort(), ["dead", "done"], "exactly one new delivery job");
  }),
);

t.test("operators list dead deliveries of every merchant in keyset pages, without payloads or secrets", (t) =>
  forEachDialectConfig(t, "dead deliveries", async (t, config) => {
    const { server, merchant, endpointSecret, deliveryId, token, another } = await deadDelivery(t, config);
    const second = await another();
    const list = `${server.url}/v1/operator/webhook-deliveries`;
    const aliceToken = await token(alice);

    t.match(await call(`${list}?status=dead`, { key: merchant.api_key }), { status: 403 }, "a merchant is not an operator");
    t.match(await call(`${list}?status=dead`, { key: await token(mallory) }), { status: 403 }, "neither is any other user");

    const first = await call(`${list}?status=dead&limit=1`, { key: aliceToken });
    t.equal(first.status, 200);
    const firstPage = first.body.data as Array<Record<string, unknown>>;
    t.same(firstPage.map((d) => d.id), [second], "newest first");
    t.match(firstPage[0], { object: "webhook_delivery", merchant_id: merchant.merchant_id, event_type: "PaymentSucceeded", status: "dead", attempts: 2 });
    t.type(firstPage[0]?.last_error, "string", "the last error is shown");
    t.same(
      Object.keys(firstPage[0] ?? {}).sort(),
      ["attempts", "created_at", "endpoint_id", "event_id", "event_type", "id", "last_error", "merchant_id", "object", "status", "updated_at"],
      "only ids, event type, attempts, last error and timestamps",
    );
    t.notMatch(first.text, endpointSecret, "the signing secret is never shown");
    t.notMatch(first.text, /amount_minor|whsec_/, "nor the payload");
    t.type(first.body.next_cursor, "string");

    const rest = await call(`${list}?status=dead&limit=1&cursor=${String(first.body.next_cursor)}`, { key: aliceToken });
    t.same((rest.body.data as Array<Record<string, unknown>>).map((d) => d.id), [deliveryId], "the second page continues after the cursor");
    t.equal(rest.body.next_cursor, null, "and is the last");

    t.match(await call(`${list}?status=dead&cursor=${String(first.body.next_cursor).slice(0, -2)}xy`, { key: aliceToken }), {
      status: 400,
      body: { code: "invalid_cursor" },
    }, "an edited cursor is refused");
    t.equal((await call(list, { key: aliceToken })).status, 400, "the status filter is required");
  }),
);
