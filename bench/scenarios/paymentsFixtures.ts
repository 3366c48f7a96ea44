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

/** What a lane of the raw confirm reuses: the merchant, its key prefix, its own intent and a PaymentSucceeded envelope. */
export interface RawConfirmLane {
  readonly merchantId: string;
  readonly keyPrefix: string;
  readonly intentId: string;
  readonly event: { readonly type: string; readonly json: string };
  version: number;
  attempt: number;
}

/**
 * The statements of confirm number `sequence` on `lane`'s intent, with parameters shaped as the
 * stack's: the lane confirms its one intent again and again (versions and attempt numbers move on,
 * as a new intent's would), so no fixture has to be made per operation.
 */
export const rawConfirm = (dialect: "sqlite" | "postgres", lane: RawConfirmLane, sequence: number, toDb: (at: Date) => unknown): RawConfirm => {
  const sql = confirmSql(dialect);
  const at = new Date();
  const time = toDb(at);
  const scope = `merchant:${lane.merchantId}`;
  const key = `raw-${sequence}-${randomUUID()}`;
  const attemptId = randomUUID();
  lane.attempt += 1;
  const number = lane.attempt;
  const reference = `pi_${lane.intentId}_attempt_${number}`;
  const intentRow = (status: string, captured: number, version: number) => [
    2500, "EUR", "automatic", status, 0, captured, 0, "pm_card_visa", captured > 0 ? `sbx_pay_${sequence}` : null, null, number, version + 1, time, lane.intentId, version,
  ];
  const audit = (action: string, data: unknown) => [randomUUID(), lane.merchantId, "merchant:key", action, "payment_intent", lane.intentId, "merchant request", JSON.stringify(data), time];
  const posting = capturePostingRows({ merchantId: lane.merchantId, intentId: `${lane.intentId}:${sequence}`, amountMinor: 2500, currency: "EUR", time });
  const v1 = lane.version;
  lane.version += 2;
  return {
    before: [
      [sql.apiKey, [lane.keyPrefix]],
      [sql.reserveKey, reserveKeyParams(scope, key, at, toDb)],
    ],
    step1: [
      [sql.lockIntent, [lane.intentId]],
      [sql.insertAttempt, [attemptId, lane.intentId, lane.merchantId, number, reference, "pm_card_visa", "pending", null, null, time, time]],
      [sql.updateIntent, intentRow("processing", 0, v1)],
      [sql.audit, audit("payment_intent.confirm_started", { attempt: number, reference })],
    ],
    step3: [
      [sql.lockIntent, [lane.intentId]],
      [sql.selectAttempt, [lane.intentId, number]],
      [sql.updateAttempt, ["captured", `sbx_pay_${sequence}`, null, time, attemptId]],
      [sql.updateIntent, intentRow("succeeded", 2500, v1 + 1)],
      [sql.ledgerTransaction, posting.transaction],
      [sql.ledgerEntries, posting.entries],
      [sql.outbox, [randomUUID(), lane.merchantId, lane.event.type, lane.event.json, "pending", 0, time, time]],
      [sql.audit, audit("payment_intent.succeeded", { attempt: number, provider_payment_id: `sbx_pay_${sequence}` })],
    ],
    after: [[sql.completeKey, ["completed", JSON.stringify({ status: 200, headers: {}, body: { id: lane.intentId, status: "succeeded" } }), scope, key, "in_progress"]]],
  };
};

/**
 * One lane per concurrent loop of the raw confirm: the bench merchant (made in setup), its key
 * prefix, a fresh intent of its own, and a PaymentSucceeded envelope copied from the outbox the
 * HTTP load filled (what the relay then delivers, as it does the stack's).
 */
export const rawConfirmLanes = async (db: RawDatabase, count: number, toDb: (at: Date) => unknown): Promise<RawConfirmLane[]> => {
  const read = async (sql: string, params: unknown[] = []): Promise<Record<string, unknown> | undefined> =>
    db.dialect === "sqlite" ? (db.sqlite.prepare(sql).get(...params) as Record<string, unknown> | undefined) : (await db.pool.query(numbered("postgres", sql), params)).rows[0];
  const merchant = await read(`select "id" from "payment_merchants" order by "created_at" desc limit 1`);
  const key = merchant === undefined ? undefined : await read(`select "key_prefix" from "payment_api_keys" where "merchant_id" = ? limit 1`, [merchant.id]);
  const event = await read(`select "type", "event" from "outbox" where "type" = 'PaymentSucceeded' limit 1`);
  if (merchant === undefined || key === undefined || event === undefined) throw new Error("raw confirm: run after the scenario's setup and load (merchant, key and a PaymentSucceeded event)");
  const merchantId = String(merchant.id);
  const sql = confirmSql(db.dialect);
  const time = toDb(new Date());
  const lanes: RawConfirmLane[] = [];
  for (let i = 0; i < count; i++) {
    const intentId = randomUUID();
    const row = [intentId, merchantId, 2500, "EUR", "automatic", "requires_payment_method", 0, 0, 0, null, null, 0, null, 1, time, time];
    if (db.dialect === "sqlite") db.sqlite.prepare(sql.insertIntent).run(...row);
    else await db.pool.query(sql.insertIntent, row);
    lanes.push({
      merchantId,
      keyPrefix: String(key.key_prefix),
      intentId,
      event: { type: String(event.type), json: typeof event.event === "string" ? event.event : JSON.stringify(event.event) },
      version: 1,
      attempt: 0,
    });
  }
  return lanes;
};
