/** Row <-> record mapping of the payment tables (snake_case columns, dialect-specific times). */
import type { DialectFeatures } from "../DialectFeatures.js";
import { toNumber } from "../runQuery.js";
import type { IntentStatus } from "../../../core/payments/IntentStatus.js";
import type {
  AttemptStatus,
  BalanceEntry,
  CaptureMethod,
  PaymentAttempt,
  PaymentIntent,
  Refund,
  RefundStatus,
} from "../../../core/payments/PaymentIntent.js";

type Row = Record<string, unknown>;
const str = (v: unknown): string => String(v);
const nullable = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** An intent as column values. */
export const intentToRow = (f: DialectFeatures, i: PaymentIntent): Row => ({
  id: i.id,
  merchant_id: i.merchantId,
  amount_minor: i.amountMinor,
  currency: i.currency,
  capture_method: i.captureMethod,
  status: i.status,
  amount_capturable_minor: i.amountCapturableMinor,
  amount_captured_minor: i.amountCapturedMinor,
  amount_refunded_minor: i.amountRefundedMinor,
  payment_method: i.paymentMethod,
  provider_payment_id: i.providerPaymentId,
  attempt_count: i.attemptCount,
  last_decline_code: i.lastDeclineCode,
  version: i.version,
  created_at: f.timeToDb(i.createdAt),
  updated_at: f.timeToDb(i.updatedAt),
});

/** A stored intent row as a record. */
export const intentFromRow = (f: DialectFeatures, r: Row): PaymentIntent => ({
  id: str(r.id),
  merchantId: str(r.merchant_id),
  amountMinor: toNumber(r.amount_minor),
  currency: str(r.currency),
  captureMethod: str(r.capture_method) as CaptureMethod,
  status: str(r.status) as IntentStatus,
  amountCapturableMinor: toNumber(r.amount_capturable_minor),
  amountCapturedMinor: toNumber(r.amount_captured_minor),
  amountRefundedMinor: toNumber(r.amount_refunded_minor),
  paymentMethod: nullable(r.payment_method),
  providerPaymentId: nullable(r.provider_payment_id),
  attemptCount: toNumber(r.attempt_count),
  lastDeclineCode: nullable(r.last_decline_code),
  version: toNumber(r.version),
  createdAt: f.timeFromDb(r.created_at),
  updatedAt: f.timeFromDb(r.updated_at),
});

/** An attempt as column values. */
export const attemptToRow = (f: DialectFeatures, a: PaymentAttempt): Row => ({
  id: a.id,
  intent_id: a.intentId,
  merchant_id: a.merchantId,
  number: a.number,
  reference: a.reference,
  payment_method: a.paymentMethod,
  status: a.status,
  provider_payment_id: a.providerPaymentId,
  decline_code: a.declineCode,
  created_at: f.timeToDb(a.createdAt),
  updated_at: f.timeToDb(a.updatedAt),
});

/** A stored attempt row as a record. */
export const attemptFromRow = (f: DialectFeatures, r: Row): PaymentAttempt => ({
  id: str(r.id),
  intentId: str(r.intent_id),
  merchantId: str(r.merchant_id),
  number: toNumber(r.number),
  reference: str(r.reference),
  paymentMethod: str(r.payment_method),
  status: str(r.status) as AttemptStatus,
  providerPaymentId: nullable(r.provider_payment_id),
  declineCode: nullable(r.decline_code),
  createdAt: f.timeFromDb(r.created_at),
  updatedAt: f.timeFromDb(r.updated_at),
});

/** A refund as column values. */
export const refundToRow = (f: DialectFeatures, x: Refund): Row => ({
  id: x.id,
  intent_id: x.intentId,
  merchant_id: x.merchantId,
  amount_minor: x.amountMinor,
  currency: x.currency,
  status: x.status,
  reference: x.reference,
  failure_reason: x.failureReason,
  created_at: f.timeToDb(x.createdAt),
  updated_at: f.timeToDb(x.updatedAt),
});

/** A stored refund row as a record. */
export const refundFromRow = (f: DialectFeatures, r: Row): Refund => ({
  id: str(r.id),
  intentId: str(r.intent_id),
  merchantId: str(r.merchant_id),
  amountMinor: toNumber(r.amount_minor),
  currency: str(r.currency),
  status: str(r.status) as RefundStatus,
  reference: str(r.reference),
  failureReason: nullable(r.failure_reason),
  createdAt: f.timeFromDb(r.created_at),
  updatedAt: f.timeFromDb(r.updated_at),
});

/** A ledger entry row (joined with its transaction's source) as a record. */
export const balanceEntryFromRow = (f: DialectFeatures, r: Row): BalanceEntry => ({
  id: str(r.id),
  transactionId: str(r.transaction_id),
  source: str(r.source),
  account: str(r.account),
  amountMinor: toNumber(r.amount_minor),
  currency: str(r.currency),
  createdAt: f.timeFromDb(r.created_at),
});
