/**
 * What the payment scenarios share: the bench merchant, and the ledger posting a capture makes
 * (the statements PaymentsRepository.postLedger issues, Kysely's compiled SQL, per dialect).
 */
import { randomUUID } from "node:crypto";
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
