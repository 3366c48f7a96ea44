/**
 * Storage of the payment module: merchants, intents, attempts, refunds, the append-only ledger
 * and the append-only audit log. Every call joins the open transaction (Transactions.run).
 */
import { Context, Effect } from "effect";
import type { DuplicateLedgerSource, LedgerTransaction } from "../../core/kernel/Ledger.js";
import type { AuditRecord } from "../../core/payments/model/AuditRecord.js";
import type { BalanceEntry } from "../../core/payments/model/BalanceEntry.js";
import type { Merchant } from "../../core/payments/model/Merchant.js";
import type { PaymentAttempt } from "../../core/payments/model/PaymentAttempt.js";
import type { PaymentIntent } from "../../core/payments/model/PaymentIntent.js";
import type { Refund } from "../../core/payments/model/Refund.js";

/** Row locking for a read inside a transaction. */
export interface LockOptions {
  /** Lock the row until the transaction ends (Postgres FOR UPDATE; SQLite is already serialized). */
  readonly forUpdate?: boolean;
}

/** The payment module's repository. */
export interface PaymentsRepository {
  readonly insertMerchant: (merchant: Merchant) => Effect.Effect<void>;
  readonly findMerchant: (id: string) => Effect.Effect<Merchant | null>;
  readonly insertIntent: (intent: PaymentIntent) => Effect.Effect<void>;
  /** Any merchant's intent by id; the core checks ownership. */
  readonly findIntent: (id: string, options?: LockOptions) => Effect.Effect<PaymentIntent | null>;
  /** Writes `intent` if the stored version is still `expectedVersion`; false when it moved. */
  readonly updateIntent: (intent: PaymentIntent, expectedVersion: number) => Effect.Effect<boolean>;
  readonly insertAttempt: (attempt: PaymentAttempt) => Effect.Effect<void>;
  readonly findAttempt: (intentId: string, number: number) => Effect.Effect<PaymentAttempt | null>;
  /** Attempts still `pending` that started before `before`, oldest first, at most `limit`. */
  readonly pendingAttemptsBefore: (before: Date, limit: number) => Effect.Effect<ReadonlyArray<PaymentAttempt>>;
  readonly updateAttempt: (attempt: PaymentAttempt) => Effect.Effect<void>;
  /** When the intent's attempts declined at or after `since` were declined, oldest first, at most `limit`. */
  readonly declinesSince: (intentId: string, since: Date, limit: number) => Effect.Effect<ReadonlyArray<Date>>;
  readonly insertRefund: (refund: Refund) => Effect.Effect<void>;
  readonly findRefund: (id: string, options?: LockOptions) => Effect.Effect<Refund | null>;
  /** The merchant's refund requested under Idempotency-Key `requestKey`, if any. */
  readonly findRefundByRequestKey: (merchantId: string, requestKey: string) => Effect.Effect<Refund | null>;
  readonly updateRefund: (refund: Refund) => Effect.Effect<void>;
  /** The sum of pending and succeeded refunds of an intent. */
  readonly committedRefundsMinor: (intentId: string) => Effect.Effect<number>;
  /** Posts a checked, balanced transaction; its source must be new. */
  readonly postLedger: (posting: {
    readonly id: string;
    /** One id per entry of `transaction`, in order (from the Ids port). */
    readonly entryIds: ReadonlyArray<string>;
    readonly merchantId: string;
    readonly transaction: LedgerTransaction;
    readonly createdAt: Date;
  }) => Effect.Effect<void, DuplicateLedgerSource>;
  /** A merchant's ledger entries, newest first, strictly before the entry id `before`. */
  readonly listBalanceEntries: (req: {
    readonly merchantId: string;
    readonly before?: string;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<BalanceEntry>>;
  readonly appendAudit: (record: AuditRecord) => Effect.Effect<void>;
}
export const PaymentsRepository = Context.GenericTag<PaymentsRepository>("domainkit/payments/PaymentsRepository");
