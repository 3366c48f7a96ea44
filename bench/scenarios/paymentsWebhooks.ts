/**
 * Provider webhook ingestion under load (`payments-webhooks`): POST /v1/webhooks/provider with
 * signed `payment.captured` events, 80% distinct event ids (each the capture of its own intent
 * held in requires_capture: signature check, inbox row, intent lock, capture with its balanced
 * ledger posting, outbox event, audit, one transaction) and 20% repeats of earlier ids (the
 * replay path: found in the inbox, nothing changes, 200 `duplicate: true`). The raw baseline is
 * the inbox insert plus the ledger posting in one transaction on the bare driver.
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
import { benchMerchant, capturePostingRows, postingSql } from "./paymentsFixtures.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/** The provider webhook secret of the benchmark server (fresh per process; BenchTarget configures it). */
export const benchProviderWebhookSecret = randomBytes(32).toString("hex");

/**
 * Distinct events (intents held for capture) per HTTP connection. Past the plan the requests
 * wrap around and every delivery is a replay, so raise this for long or very fast runs.
 */
const distinctEventsPerConnection = 400;

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

// The inbox insert of one stored and applied event: ProviderEventsInbox.insert (Kysely's compiled
// SQL), per dialect; the ledger posting's statements are in paymentsFixtures.ts.
const inboxSqlite = `insert into "payment_provider_events" ("id", "provider_event_id", "type", "payload", "status", "outcome", "merchant_id", "provider_object", "occurred_at", "received_at", "processed_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("provider_event_id") do nothing returning "id"`;
const inboxPostgres = `insert into "payment_provider_events" ("id", "provider_event_id", "type", "payload", "status", "outcome", "merchant_id", "provider_object", "occurred_at", "received_at", "processed_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict ("provider_event_id") do nothing returning "id"`;

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

/** One stored and applied event's parameters: the inbox row, then the capture posting. */
const eventRows = (merchantId: string, time: unknown, payload: (eventId: string, intentId: string) => string) => {
  const eventId = `evt_${randomBytes(12).toString("hex")}`;
  const intentId = randomUUID();
  const reference = attemptReference(intentId, 1);
  const inbox = [randomUUID(), eventId, "payment.captured", payload(eventId, intentId), "processed", "requires_capture -> succeeded", merchantId, reference, time, time, time];
  const { transaction, entries } = capturePostingRows({ merchantId, intentId, amountMinor, currency, time });
  return { inbox, transaction, entries };
};

/** A payload the size of a real event, for the raw insert. */
const payloadOf = (eventId: string, intentId: string): string => JSON.stringify({ ...capturedEvent(intentId, "sbx_pay_1"), id: eventId });

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
        Array.from({ length: connections * distinctEventsPerConnection }),
        () =>
          Effect.gen(function* () {
            const intent = yield* createIntent(principal, { amountMinor, currency, captureMethod: "manual" });
            const confirmed = yield* confirmIntent(principal, intent.id, { paymentMethod: "pm_card_visa" });
            return confirmed.intent;
          }),
        { concurrency: target.dialect === "sqlite" ? 1 : 10 },
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
    return { requests };
  },
  rawBaseline: async (db, bounds) => {
    const merchantId = randomUUID();
    if (db.dialect === "sqlite") {
      const begin = db.sqlite.prepare("BEGIN IMMEDIATE");
      const inbox = db.sqlite.prepare(inboxSqlite);
      const transaction = db.sqlite.prepare(postingSql.sqlite.transaction);
      const entries = db.sqlite.prepare(postingSql.sqlite.entries);
      const commit = db.sqlite.prepare("COMMIT");
      const measured = await measureOps(() => {
        const rows = eventRows(merchantId, new Date().toISOString(), payloadOf);
        begin.run();
        inbox.get(...rows.inbox);
        transaction.get(...rows.transaction);
        entries.run(...rows.entries);
        commit.run();
      }, bounds);
      return { ...measured, label: "BEGIN IMMEDIATE; insert inbox event RETURNING; insert ledger transaction RETURNING; insert 2 entries; COMMIT" };
    }
    const pool = db.pool;
    const measured = await measureOps(async () => {
      const rows = eventRows(merchantId, new Date(), payloadOf);
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(inboxPostgres, rows.inbox);
        await client.query(postingSql.postgres.transaction, rows.transaction);
        await client.query(postingSql.postgres.entries, rows.entries);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    }, bounds);
    return { ...measured, label: "BEGIN; insert inbox event RETURNING; insert ledger transaction RETURNING; insert 2 entries; COMMIT" };
  },
};
