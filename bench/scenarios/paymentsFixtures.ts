/**
 * What the payment scenarios share: the bench merchant, and the ledger posting a capture makes
 * (the statements PaymentsRepository.postLedger issues, Kysely's compiled SQL, per dialect).
 */
import { randomUUID } from "node:crypto";
import type { RawDatabase } from "../RawDatabase.js";
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

/** `sql` with `?` placeholders as the dialect writes them (`$1`, `$2`, ... on Postgres). */
export const numbered = (dialect: "sqlite" | "postgres", sql: string): string => {
  let n = 0;
  return dialect === "sqlite" ? sql : sql.replace(/\?/g, () => `$${++n}`);
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
    reserveKey: q(
      `insert into "idempotency_keys" ("scope", "key", "request_hash", "state", "response", "locked_until", "expires_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?) on conflict ("scope", "key") do update set "request_hash" = "excluded"."request_hash", "state" = ?, "response" = ?, "locked_until" = "excluded"."locked_until", "expires_at" = "excluded"."expires_at", "created_at" = "excluded"."created_at" where (("idempotency_keys"."state" = ? and "idempotency_keys"."locked_until" <= ?) or "idempotency_keys"."expires_at" <= ?) returning "scope"`,
    ),
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
    outbox: q(`insert into "outbox" ("id", "tenant_id", "type", "event", "status", "attempts", "next_attempt_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?)`),
    completeKey: q(`update "idempotency_keys" set "state" = ?, "response" = ? where "scope" = ? and "key" = ? and "state" = ?`),
    insertIntent: q(
      `insert into "payment_intents" ("id", "merchant_id", "amount_minor", "currency", "capture_method", "status", "amount_capturable_minor", "amount_captured_minor", "amount_refunded_minor", "payment_method", "provider_payment_id", "attempt_count", "last_decline_code", "version", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
};

/** One statement of a raw operation: its SQL and parameters. */
export type RawStatement = readonly [sql: string, params: ReadonlyArray<unknown>];

/**
 * Runs raw statements on the bare driver as the stack runs them: one by one outside a
 * transaction (autocommit), or together in one (BEGIN IMMEDIATE on SQLite). A statement that
 * answers rows is read, as the stack reads it. SQLite's steps are synchronous (no promise), so
 * the raw loop stays tight; Postgres's steps are promises.
 */
export interface RawRunner {
  readonly autocommit: (statements: ReadonlyArray<RawStatement>) => void | Promise<void>;
  readonly inTransaction: (statements: ReadonlyArray<RawStatement>) => void | Promise<void>;
}

/** The runner of raw statements on `db` (SQLite statements prepared once per text). */
export const rawRunner = (db: RawDatabase): RawRunner => {
  if (db.dialect === "sqlite") {
    const sqlite = db.sqlite;
    const prepared = new Map<string, ReturnType<typeof sqlite.prepare<unknown[]>>>();
    const run = ([sql, params]: RawStatement): void => {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare<unknown[]>(sql);
        prepared.set(sql, statement);
      }
      if (statement.reader) statement.all(...params);
      else statement.run(...params);
    };
    return {
      autocommit: (statements) => statements.forEach(run),
      inTransaction: (statements) => {
        run(["BEGIN IMMEDIATE", []]);
        statements.forEach(run);
        run(["COMMIT", []]);
      },
    };
  }
  const pool = db.pool;
  return {
    autocommit: async (statements) => {
      for (const [sql, params] of statements) await pool.query(sql, [...params]);
    },
    inTransaction: async (statements) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        for (const [sql, params] of statements) await client.query(sql, [...params]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
  };
};

/** Runs `steps` in order, synchronously until one answers a promise (then the rest after it). */
export const inOrder = (steps: ReadonlyArray<() => void | Promise<void>>): void | Promise<void> => {
  for (let i = 0; i < steps.length; i++) {
    const result = steps[i]!();
    if (result instanceof Promise) return steps.slice(i + 1).reduce<Promise<void>>((previous, step) => previous.then(step), result);
  }
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
      [sql.reserveKey, [scope, key, "a".repeat(64), "in_progress", null, toDb(new Date(at.getTime() + 60_000)), toDb(new Date(at.getTime() + 86_400_000)), time, "in_progress", null, "in_progress", time, time]],
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
