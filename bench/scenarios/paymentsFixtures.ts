/**
 * What the payment scenarios share: the bench merchant, and the ledger posting a capture makes
 * (the statements PaymentsRepository.postLedger issues, Kysely's compiled SQL, per dialect).
 */
import { randomUUID } from "node:crypto";
import type { RawDatabase } from "../RawDatabase.js";
import { kernelSql, numbered, reserveKeyParams, type RawStatement } from "../RawStatements.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import type { DomainRuntime } from "../../hosts/Runtime.js";

/** Every scope a bench merchant needs. */
export const merchantScopes = ["payments:write", "refunds:write", "ledger:read"];

/** Creates the bench merchant; answers its API key and its principal for calling the core directly. */
export const benchMerchant = async (runtime: DomainRuntime) => {
  const merchant = await createMerchantWithKey(runtime, { name: "Bench shop", scopes: merchantScopes, actor: "system:bench" });
  const principal = { kind: "merchant" as const, merchantId: merchant.merchant_id, keyId: merchant.key_id, scopes: merchantScopes };
  return { merchant, principal };
};

/** The ledger posting of one capture, per dialect. */
export const postingSql = {
  sqlite: {
    transaction: `insert into "payment_ledger_transactions" ("id", "source", "merchant_id", "reverses", "created_at") values (?, ?, ?, ?, ?) on conflict ("source") do nothing returning "id"`,
    entries: `insert into "payment_ledger_entries" ("id", "transaction_id", "merchant_id", "account", "amount_minor", "currency", "created_at") values (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)`,
  },
  postgres: {
    transaction: `insert into "payment_ledger_transactions" ("id", "source", "merchant_id", "reverses", "created_at") values ($1, $2, $3, $4, $5) on conflict ("source") do nothing returning "id"`,
    entries: `insert into "payment_ledger_entries" ("id", "transaction_id", "merchant_id", "account", "amount_minor", "currency", "created_at") values ($1, $2, $3, $4, $5, $6, $7), ($8, $9, $10, $11, $12, $13, $14)`,
  },
} as const;

/** One capture posting's parameters: clearing debited, balance credited. */
export const capturePostingRows = (input: {
  readonly merchantId: string;
  readonly intentId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly time: unknown;
}) => {
  const { merchantId, amountMinor, currency, time } = input;
  const transactionId = randomUUID();
  const transaction = [transactionId, `payment_intent:${input.intentId}:capture`, merchantId, null, time];
  const entries = [
    randomUUID(), transactionId, merchantId, `merchant:${merchantId}:provider_clearing`, -amountMinor, currency, time,
    randomUUID(), transactionId, merchantId, `merchant:${merchantId}:balance`, amountMinor, currency, time,
  ];
  return { transaction, entries };
};

/**
 * Every statement one confirm runs through the stack, as the adapters compile them (captured from
 * the server under the bench's load), in the order it runs them: the API key lookup and the
 * idempotency reservation, step 1's transaction, step 3's transaction, the idempotency answer.
 * The merchant webhook fan-out's endpoint read belongs to the relay, not the request.
 */
export const confirmSql = (dialect: "sqlite" | "postgres") => {
  const forUpdate = dialect === "postgres" ? " for update" : "";
  const q = (sql: string) => numbered(dialect, sql);
  return {
    apiKey: q(`select "id", "merchant_id", "secret_hash", "scopes", "expires_at" from "payment_api_keys" where "key_prefix" = ? and "revoked_at" is null`),
    reserveKey: kernelSql(dialect).reserveKey,
    lockIntent: q(`select * from "payment_intents" where "id" = ?${forUpdate}`),
    insertAttempt: q(
      `insert into "payment_attempts" ("id", "intent_id", "merchant_id", "number", "reference", "payment_method", "status", "provider_payment_id", "decline_code", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateIntent: q(
      `update "payment_intents" set "amount_minor" = ?, "currency" = ?, "capture_method" = ?, "status" = ?, "amount_capturable_minor" = ?, "amount_captured_minor" = ?, "amount_refunded_minor" = ?, "payment_method" = ?, "provider_payment_id" = ?, "last_decline_code" = ?, "attempt_count" = ?, "version" = ?, "updated_at" = ? where "id" = ? and "version" = ?`,
    ),
    audit: q(`insert into "payment_audit_log" ("id", "merchant_id", "actor", "action", "subject_type", "subject_id", "reason", "data", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    selectAttempt: q(`select * from "payment_attempts" where "intent_id" = ? and "number" = ?`),
    updateAttempt: q(`update "payment_attempts" set "status" = ?, "provider_payment_id" = ?, "decline_code" = ?, "updated_at" = ? where "id" = ?`),
    ledgerTransaction: postingSql[dialect].transaction,
    ledgerEntries: postingSql[dialect].entries,
    outbox: kernelSql(dialect).outbox,
    completeKey: kernelSql(dialect).completeKey,
    insertIntent: q(
      `insert into "payment_intents" ("id", "merchant_id", "amount_minor", "currency", "capture_method", "status", "amount_capturable_minor", "amount_captured_minor", "amount_refunded_minor", "payment_method", "provider_payment_id", "attempt_count", "last_decline_code", "version", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
};

/** The three parts of one raw confirm: autocommit statements around two transactions. */
export interface RawConfirm {
  readonly before: ReadonlyArray<RawStatement>;
  readonly step1: ReadonlyArray<RawStatement>;
  readonly step3: ReadonlyArray<RawStatement>;
  readonly after: ReadonlyArray<RawStatement>;
}

/**
 * What the raw confirm shares: the merchant, its key prefix, a PaymentSucceeded envelope, and a
 * pool of fresh intents (status requires_payment_method, version 1) made before the loop, one per
 * confirm: the database moves an intent only along its transition table (payments migration 18),
 * so a confirmed intent cannot be confirmed again, as it cannot through the stack.
 */
export interface RawConfirmFixture {
  readonly merchantId: string;
  readonly keyPrefix: string;
  readonly event: { readonly type: string; readonly json: string };
  /** Intents not yet confirmed; each confirm takes one. */
  readonly fresh: string[];
}

/** The statements of confirm number `sequence`, on the next fresh intent, with parameters shaped as the stack's. */
export const rawConfirm = (dialect: "sqlite" | "postgres", fixture: RawConfirmFixture, sequence: number, toDb: (at: Date) => unknown): RawConfirm => {
  const intentId = fixture.fresh.pop();
  if (intentId === undefined) throw new Error("raw confirm: the pool of fresh intents ran out (rawConfirmFixture's poolSize is below the loop's confirms)");
  const sql = confirmSql(dialect);
  const at = new Date();
  const time = toDb(at);
  const { merchantId } = fixture;
  const scope = `merchant:${merchantId}`;
  const key = `raw-${sequence}-${randomUUID()}`;
  const attemptId = randomUUID();
  const number = 1;
  const reference = `pi_${intentId}_attempt_${number}`;
  const intentRow = (status: string, captured: number, version: number) => [
    2500, "EUR", "automatic", status, 0, captured, 0, "pm_card_visa", captured > 0 ? `sbx_pay_${sequence}` : null, null, number, version + 1, time, intentId, version,
  ];
  const audit = (action: string, data: unknown) => [randomUUID(), merchantId, "merchant:key", action, "payment_intent", intentId, "merchant request", JSON.stringify(data), time];
  const posting = capturePostingRows({ merchantId, intentId, amountMinor: 2500, currency: "EUR", time });
  return {
    before: [
      [sql.apiKey, [fixture.keyPrefix]],
      [sql.reserveKey, reserveKeyParams(scope, key, at, toDb)],
    ],
    step1: [
      [sql.lockIntent, [intentId]],
      [sql.insertAttempt, [attemptId, intentId, merchantId, number, reference, "pm_card_visa", "pending", null, null, time, time]],
      [sql.updateIntent, intentRow("processing", 0, 1)],
      [sql.audit, audit("payment_intent.confirm_started", { attempt: number, reference })],
    ],
    step3: [
      [sql.lockIntent, [intentId]],
      [sql.selectAttempt, [intentId, number]],
      [sql.updateAttempt, ["captured", `sbx_pay_${sequence}`, null, time, attemptId]],
      // The posting first: the database refuses a succeeded intent without it (payments migration 30).
      [sql.ledgerTransaction, posting.transaction],
      [sql.ledgerEntries, posting.entries],
      [sql.updateIntent, intentRow("succeeded", 2500, 2)],
      [sql.outbox, [randomUUID(), merchantId, fixture.event.type, fixture.event.json, "pending", 0, time, time]],
      [sql.audit, audit("payment_intent.succeeded", { attempt: number, provider_payment_id: `sbx_pay_${sequence}` })],
    ],
    after: [[sql.completeKey, ["completed", JSON.stringify({ status: 200, headers: {}, body: { id: intentId, status: "succeeded" } }), scope, key, "in_progress"]]],
  };
};

/** Intents written per statement while the pool is made. */
const poolBatch = 500;

/**
 * The raw confirm's fixture: the bench merchant (made in setup), its key prefix, a
 * PaymentSucceeded envelope copied from the outbox the HTTP load filled (what the relay then
 * delivers, as it does the stack's), and `poolSize` fresh intents, written before the loop in
 * multi-row inserts (untimed).
 */
export const rawConfirmFixture = async (db: RawDatabase, poolSize: number, toDb: (at: Date) => unknown): Promise<RawConfirmFixture> => {
  const read = async (sql: string, params: unknown[] = []): Promise<Record<string, unknown> | undefined> =>
    db.dialect === "sqlite" ? (db.sqlite.prepare(sql).get(...params) as Record<string, unknown> | undefined) : (await db.pool.query(numbered("postgres", sql), params)).rows[0];
  const merchant = await read(`select "id" from "payment_merchants" order by "created_at" desc limit 1`);
  const key = merchant === undefined ? undefined : await read(`select "key_prefix" from "payment_api_keys" where "merchant_id" = ? limit 1`, [merchant.id]);
  const event = await read(`select "type", "event" from "outbox" where "type" = 'PaymentSucceeded' limit 1`);
  if (merchant === undefined || key === undefined || event === undefined) throw new Error("raw confirm: run after the scenario's setup and load (merchant, key and a PaymentSucceeded event)");
  const merchantId = String(merchant.id);
  const time = toDb(new Date());
  const fresh: string[] = [];
  const columns = `("id", "merchant_id", "amount_minor", "currency", "capture_method", "status", "amount_capturable_minor", "amount_captured_minor", "amount_refunded_minor", "payment_method", "provider_payment_id", "attempt_count", "last_decline_code", "version", "created_at", "updated_at")`;
  for (let from = 0; from < poolSize; from += poolBatch) {
    const ids = Array.from({ length: Math.min(poolBatch, poolSize - from) }, () => randomUUID());
    const sql = numbered(db.dialect, `insert into "payment_intents" ${columns} values ${ids.map(() => `(${Array(16).fill("?").join(", ")})`).join(", ")}`);
    const params = ids.flatMap((id) => [id, merchantId, 2500, "EUR", "automatic", "requires_payment_method", 0, 0, 0, null, null, 0, null, 1, time, time]);
    if (db.dialect === "sqlite") db.sqlite.prepare(sql).run(...params);
    else await db.pool.query(sql, params);
    fresh.push(...ids);
  }
  return {
    merchantId,
    keyPrefix: String(key.key_prefix),
    event: { type: String(event.type), json: typeof event.event === "string" ? event.event : JSON.stringify(event.event) },
    fresh,
  };
};
