/**
 * Provider webhook ingestion under load (`payments-webhooks`): POST /v1/webhooks/provider with
 * signed `payment.captured` events, 80% distinct event ids (each the capture of its own intent
 * held in requires_capture: signature check, inbox row, intent lock, capture with its balanced
 * ledger posting, outbox event, audit, one transaction) and 20% repeats of earlier ids (the
 * replay path: found in the inbox, nothing changes, 200 `duplicate: true`). The raw baseline runs
 * every statement the stack runs for the same mix on the bare driver: for a new event the inbox
 * lookup, then one transaction of the attempt and intent reads, the inbox row, the attempt and
 * intent updates, the ledger posting, the outbox event and the audit row; for a replay the inbox
 * lookup alone. Until the eighth session it was the inbox insert plus the ledger posting (5 of
 * those 13 statements, and no replays).
 *
 * The server refuses every provider webhook unless PROVIDER_WEBHOOK_SECRET is configured: the
 * bench target sets it to `benchProviderWebhookSecret`, which this scenario signs with.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Effect } from "effect";
import { sandboxWebhookBody, signWebhook, webhookSignatureHeader } from "../../adapters/payments/providers/sandbox/SandboxWebhooks.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { attemptReference } from "../../core/payments/ProviderReferences.js";
import { benchMerchant, capturePostingRows, confirmSql } from "./paymentsFixtures.js";
import { inOrder, numbered, rawRunner, type RawStatement } from "../RawStatements.js";
import type { RawDatabase } from "../RawDatabase.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/** The provider webhook secret of the benchmark server (fresh per process; BenchTarget configures it). */
export const benchProviderWebhookSecret = randomBytes(32).toString("hex");

/**
 * Distinct events (intents held for capture) per HTTP connection, by dialect: with 10
 * connections, 28,000 events and 35,000 deliveries on SQLite, 10,000 and 12,500 on Postgres (a
 * 5 s run and its warm-up at 3,500 and 1,250 a second). Past the plan the requests wrap around and
 * every delivery is a replay (the run warns), so raise this for long or very fast runs.
 */
const distinctEventsPerConnection = { sqlite: 2_800, postgres: 1_000 } as const;

/** One repeat after every `repeatEvery` distinct events: 4 → 20% of the requests are duplicates. */
const repeatEvery = 4;

/**
 * The signed timestamp sits this far after the end of set-up: the receiver accepts 300 s either
 * way, so every pre-signed request stays valid from set-up until 450 s later, which covers the
 * longest run (`--duration 300` plus the warm-up) with 150 s to spare at both ends.
 */
const signedAheadSeconds = 150;

const amountMinor = 2500;
const currency = "EUR";

// The statements of an applied event besides those a confirm shares (paymentsFixtures.ts confirmSql), as the adapters compile them.
const webhookSql = (dialect: "sqlite" | "postgres") => ({
  ...confirmSql(dialect),
  findEvent: numbered(dialect, `select * from "payment_provider_events" where "provider_event_id" = ?`),
  findAttempt: numbered(dialect, `select * from "payment_attempts" where "reference" = ?`),
  insertEvent: numbered(
    dialect,
    `insert into "payment_provider_events" ("id", "provider_event_id", "type", "payload", "status", "outcome", "merchant_id", "provider_object", "occurred_at", "received_at", "processed_at", "payload_minimized_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("provider_event_id") do nothing returning "id"`,
  ),
});

/** What a lane of the raw baseline reuses: its own intent held for capture and the attempt the events name. */
interface RawWebhookLane {
  readonly merchantId: string;
  readonly intentId: string;
  readonly attemptId: string;
  readonly event: { readonly type: string; readonly json: string };
  readonly seen: string[];
  version: number;
}

/**
 * The statements of event number `sequence` on `lane`: every `repeatEvery + 1`-th a replay of an
 * event the lane stored (the lookup finds it), the others a new capture event applied in one
 * transaction. The lane's intent is captured again and again (its version moves on), so no
 * fixture has to be made per operation.
 */
const rawWebhook = (dialect: "sqlite" | "postgres", lane: RawWebhookLane, sequence: number, toDb: (at: Date) => unknown) => {
  const sql = webhookSql(dialect);
  if (sequence % (repeatEvery + 1) === repeatEvery && lane.seen.length > 0) {
    return { lookup: [[sql.findEvent, [lane.seen[sequence % lane.seen.length]]]] as RawStatement[], apply: [] as RawStatement[] };
  }
  const time = toDb(new Date());
  const eventId = `evt_${randomBytes(12).toString("hex")}`;
  lane.seen.push(eventId);
  const reference = attemptReference(lane.intentId, 1);
  const payload = JSON.stringify({ ...capturedEvent(lane.intentId, "sbx_pay_1"), id: eventId });
  const posting = capturePostingRows({ merchantId: lane.merchantId, intentId: `${lane.intentId}:${sequence}`, amountMinor, currency, time });
  const version = lane.version;
  lane.version += 1;
  return {
    lookup: [[sql.findEvent, [eventId]]] as RawStatement[],
    apply: [
      [sql.findAttempt, [reference]],
      [sql.lockIntent, [lane.intentId]],
      [sql.insertEvent, [randomUUID(), eventId, "payment.captured", payload, "processed", "requires_capture -> succeeded", lane.merchantId, reference, time, time, time, time]],
      [sql.updateAttempt, ["captured", "sbx_pay_1", null, time, lane.attemptId]],
      [sql.updateIntent, [amountMinor, currency, "manual", "requires_capture", amountMinor, 0, 0, "pm_card_visa", "sbx_pay_1", null, 1, version + 1, time, lane.intentId, version]],
      [sql.ledgerTransaction, posting.transaction],
      [sql.ledgerEntries, posting.entries],
      [sql.outbox, [randomUUID(), lane.merchantId, lane.event.type, lane.event.json, "pending", 0, time, time]],
      [sql.audit, [randomUUID(), lane.merchantId, "provider", "payment_intent.captured", "payment_intent", lane.intentId, "provider webhook", JSON.stringify({ event_id: eventId }), time]],
    ] as RawStatement[],
  };
};

/**
 * One lane per concurrent loop: the bench merchant (made in setup), an intent of its own held for
 * capture with its attempt, and a payment event envelope copied from the outbox the HTTP load filled.
 */
const rawWebhookLanes = async (db: RawDatabase, count: number, toDb: (at: Date) => unknown): Promise<RawWebhookLane[]> => {
  const read = async (text: string): Promise<Record<string, unknown> | undefined> =>
    db.dialect === "sqlite" ? (db.sqlite.prepare(text).get() as Record<string, unknown> | undefined) : (await db.pool.query(text)).rows[0];
  const merchant = await read(`select "id" from "payment_merchants" order by "created_at" desc limit 1`);
  const event = await read(`select "type", "event" from "outbox" where "type" like 'Payment%' order by "seq" desc limit 1`);
  if (merchant === undefined || event === undefined) throw new Error("raw webhooks: run after the scenario's setup and load (merchant and a payment event)");
  const sql = webhookSql(db.dialect);
  const runner = rawRunner(db);
  const time = toDb(new Date());
  const lanes: RawWebhookLane[] = [];
  for (let i = 0; i < count; i++) {
    const merchantId = String(merchant.id);
    const intentId = randomUUID();
    const attemptId = randomUUID();
    await runner.autocommit([
      [sql.insertIntent, [intentId, merchantId, amountMinor, currency, "manual", "requires_capture", amountMinor, 0, 0, "pm_card_visa", "sbx_pay_1", 1, null, 1, time, time]],
      [sql.insertAttempt, [attemptId, intentId, merchantId, 1, attemptReference(intentId, 1), "pm_card_visa", "authorized", "sbx_pay_1", null, time, time]],
    ]);
    lanes.push({ merchantId, intentId, attemptId, event: { type: String(event.type), json: typeof event.event === "string" ? event.event : JSON.stringify(event.event) }, seen: [], version: 1 });
  }
  return lanes;
};

/** The `payment.captured` event the sandbox sends once an authorization held for capture is captured. */
const capturedEvent = (intentId: string, providerPaymentId: string | null) => ({
  id: `evt_${randomBytes(12).toString("hex")}`,
  type: "payment.captured",
  created: Math.floor(Date.now() / 1000),
  data: {
    object: "payment",
    reference: attemptReference(intentId, 1),
    provider_payment_id: providerPaymentId,
    status: "captured",
    amount_minor: amountMinor,
    captured_minor: amountMinor,
    currency,
    decline_code: null,
  },
});

/** Ingesting signed provider events, a fifth of them replays. */
export const paymentsWebhooks: Scenario = {
  name: "payments-webhooks",
  description: "POST /v1/webhooks/provider (signed payment.captured, 20% replayed ids): verify, inbox row, capture + ledger posting, outbox, audit",
  setup: async (target, { connections }) => {
    const runtime = target.server.core.runtime;
    const { merchant, principal } = await benchMerchant(runtime);
    // Intents authorized and held for capture: each distinct event captures one of them.
    const held = await runtime.runPromise(
      Effect.forEach(
        Array.from({ length: connections * distinctEventsPerConnection[target.dialect] }),
        () =>
          Effect.gen(function* () {
            const intent = yield* createIntent(principal, { amountMinor, currency, captureMethod: "manual" });
            const confirmed = yield* confirmIntent(principal, intent.id, { paymentMethod: "pm_card_visa" });
            return confirmed.intent;
          }),
        // Concurrent on SQLite too: its transactions commit in groups (adapters/sqlite/GroupCommit.ts).
        { concurrency: 10 },
      ),
    );
    const notHeld = held.filter((intent) => intent.status !== "requires_capture");
    if (notHeld.length > 0) throw new Error(`payments-webhooks: ${notHeld.length} intents are not in requires_capture after confirmation`);
    const bodies: string[] = [];
    for (const intent of held) {
      const body = sandboxWebhookBody(capturedEvent(intent.id, intent.providerPaymentId));
      bodies.push(body);
      // A repeat of a random earlier event, so a fifth of all deliveries are replays.
      if (bodies.length % (repeatEvery + 1) === repeatEvery) bodies.push(bodies[Math.floor(Math.random() * bodies.length)] as string);
    }
    // Signed last, right before the load starts (see signedAheadSeconds).
    const timestamp = Date.now() / 1000 + signedAheadSeconds;
    const requests: BenchRequest[] = bodies.map((body) => ({
      method: "POST",
      path: "/v1/webhooks/provider",
      headers: { "content-type": "application/json", [webhookSignatureHeader.toLowerCase()]: signWebhook(benchProviderWebhookSecret, body, timestamp) },
      body,
    }));
    return { requests, consumable: true };
  },
  rawBaseline: async (db, bounds) => {
    const toDb = (at: Date): unknown => (db.dialect === "sqlite" ? at.toISOString() : at);
    const lanes = await rawWebhookLanes(db, Math.max(1, bounds.concurrency), toDb);
    const runner = rawRunner(db);
    const measured = await measureOps((sequence, lane) => {
      const event = rawWebhook(db.dialect, lanes[lane % lanes.length]!, sequence, toDb);
      return inOrder([() => runner.autocommit(event.lookup), ...(event.apply.length === 0 ? [] : [() => runner.inTransaction(event.apply)])]);
    }, bounds);
    return {
      ...measured,
      label: `every statement of the same mix: a new event's lookup, then ${db.dialect === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"}; attempt and intent reads, inbox row, attempt and intent updates, ledger posting, outbox, audit; COMMIT — a replay's lookup alone`,
    };
  },
};
