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
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, Scenario } from "../Scenario.js";

/**
 * Intents per HTTP connection, enough for a 5 s run at several thousand confirms per second;
 * past them the plan wraps around and repeated confirms are idempotent replays (reported 2xx),
 * so raise this for long runs.
 */
const intentsPerConnection = 1_000;

// The statements PaymentsRepository.postLedger issues (Kysely's compiled SQL), per dialect.
const transactionSqlite = `insert into "payment_ledger_transactions" ("id", "source", "merchant_id", "reverses", "created_at") values (?, ?, ?, ?, ?) on conflict ("source") do nothing returning "id"`;
const entriesSqlite = `insert into "payment_ledger_entries" ("id", "transaction_id", "merchant_id", "account", "amount_minor", "currency", "created_at") values (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)`;
const transactionPostgres = `insert into "payment_ledger_transactions" ("id", "source", "merchant_id", "reverses", "created_at") values ($1, $2, $3, $4, $5) on conflict ("source") do nothing returning "id"`;
const entriesPostgres = `insert into "payment_ledger_entries" ("id", "transaction_id", "merchant_id", "account", "amount_minor", "currency", "created_at") values ($1, $2, $3, $4, $5, $6, $7), ($8, $9, $10, $11, $12, $13, $14)`;

const merchantScopes = ["payments:write", "refunds:write", "ledger:read"];

/** One capture posting's parameters: clearing debited, balance credited. */
const postingRows = (merchantId: string, now: string) => {
  const transactionId = randomUUID();
  const transaction = [transactionId, `payment_intent:${randomUUID()}:capture`, merchantId, null, now];
  const entries = [
    randomUUID(), transactionId, merchantId, `merchant:${merchantId}:provider_clearing`, -2500, "EUR", now,
    randomUUID(), transactionId, merchantId, `merchant:${merchantId}:balance`, 2500, "EUR", now,
  ];
  return { transaction, entries };
};

/** Confirming intents with the sandbox's succeeding card, against the bare ledger posting. */
export const paymentsConfirm: Scenario = {
  name: "payments-confirm",
  description: "POST /v1/payment-intents/:id/confirm (pm_card_visa, automatic capture): idempotency, provider call, capture + ledger posting",
  setup: async (target, { connections }) => {
    const runtime = target.server.core.runtime;
    const merchant = await createMerchantWithKey(runtime, { name: "Bench shop", scopes: merchantScopes, actor: "system:bench" });
    const principal = { kind: "merchant" as const, merchantId: merchant.merchant_id, keyId: merchant.key_id, scopes: merchantScopes };
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
      const transaction = db.sqlite.prepare(transactionSqlite);
      const entries = db.sqlite.prepare(entriesSqlite);
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
        await client.query(transactionPostgres, rows.transaction);
        await client.query(entriesPostgres, rows.entries);
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
    const merchant = await createMerchantWithKey(target.server.core.runtime, { name: "Bench shop", scopes: merchantScopes, actor: "system:bench" });
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
