/**
 * Payments under load. `payments-confirm`: POST /v1/payment-intents/:id/confirm with
 * pm_card_visa on intents created during setup, each request a distinct intent and
 * Idempotency-Key (idempotency reserve, intent lock, attempt row, sandbox provider call outside
 * the transaction, capture with its balanced ledger posting, outbox event, idempotency
 * complete). `payments-create`: POST /v1/payment-intents, each request its own key. Together
 * they give create+confirm per second (1 / (1/create + 1/confirm)). The raw baseline of
 * `payments-confirm` is the same ledger posting on the bare driver, so the overhead is a ratio.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { benchMerchant, capturePostingRows, postingSql } from "./paymentsFixtures.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/**
 * Intents per HTTP connection, enough for a 5 s run at several thousand confirms per second;
 * past them the plan wraps around and repeated confirms are idempotent replays (reported 2xx),
 * so raise this for long runs.
 */
const intentsPerConnection = 1_000;

/** One capture posting of 25.00 EUR for the raw baseline. */
const postingRows = (merchantId: string, now: string) =>
  capturePostingRows({ merchantId, intentId: randomUUID(), amountMinor: 2500, currency: "EUR", time: now });

/** Confirming intents with the sandbox's succeeding card, against the bare ledger posting. */
export const paymentsConfirm: Scenario = {
  name: "payments-confirm",
  description: "POST /v1/payment-intents/:id/confirm (pm_card_visa, automatic capture): idempotency, provider call, capture + ledger posting",
  setup: async (target, { connections }) => {
    const runtime = target.server.core.runtime;
    const { merchant, principal } = await benchMerchant(runtime);
    const ids = await runtime.runPromise(
      Effect.forEach(
        Array.from({ length: connections * intentsPerConnection }),
        () => Effect.map(createIntent(principal, { amountMinor: 2500, currency: "EUR" }), (intent) => intent.id),
        { concurrency: target.dialect === "sqlite" ? 1 : 10 },
      ),
    );
    const body = JSON.stringify({ payment_method: "pm_card_visa" });
    const requests: BenchRequest[] = ids.map((id) => ({
      method: "POST",
      path: `/v1/payment-intents/${id}/confirm`,
      headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json", "idempotency-key": `bench-${id}` },
      body,
    }));
    return { requests };
  },
  rawBaseline: async (db, bounds) => {
    const merchantId = randomUUID();
    if (db.dialect === "sqlite") {
      const begin = db.sqlite.prepare("BEGIN IMMEDIATE");
      const transaction = db.sqlite.prepare(postingSql.sqlite.transaction);
      const entries = db.sqlite.prepare(postingSql.sqlite.entries);
      const commit = db.sqlite.prepare("COMMIT");
      const measured = await measureOps(() => {
        const rows = postingRows(merchantId, new Date().toISOString());
        begin.run();
        transaction.get(...rows.transaction);
        entries.run(...rows.entries);
        commit.run();
      }, bounds);
      return { ...measured, label: "BEGIN IMMEDIATE; insert ledger transaction RETURNING; insert 2 entries; COMMIT" };
    }
    const pool = db.pool;
    const measured = await measureOps(async () => {
      const rows = postingRows(merchantId, new Date().toISOString());
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(postingSql.postgres.transaction, rows.transaction);
        await client.query(postingSql.postgres.entries, rows.entries);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    }, bounds);
    return { ...measured, label: "BEGIN; insert ledger transaction RETURNING; insert 2 entries; COMMIT" };
  },
};

/** Creating intents (each request its own Idempotency-Key, so none is a replay). */
export const paymentsCreate: Scenario = {
  name: "payments-create",
  description: "POST /v1/payment-intents: idempotency reserve, intent + audit (+ client secret) insert, idempotency complete",
  setup: async (target, { connections }) => {
    const { merchant } = await benchMerchant(target.server.core.runtime);
    const body = JSON.stringify({ amount_minor: 2500, currency: "EUR" });
    const requests: BenchRequest[] = Array.from({ length: connections * intentsPerConnection }, () => ({
      method: "POST",
      path: "/v1/payment-intents",
      headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json", "idempotency-key": `bench-${randomUUID()}` },
      body,
    }));
    return { requests };
  },
};
