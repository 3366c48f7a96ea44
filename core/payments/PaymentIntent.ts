/**
 * The payment module's records as the core sees them (camelCase; the HTTP adapter maps them
 * to snake_case). Amounts are integer minor units in the intent's currency. Payment method
 * tokens are provider tokens, kept for the provider call only and never shown or logged.
 */
import type { IntentStatus } from "./IntentStatus.js";

/** automatic: a successful confirm captures at once; manual: it only authorizes. */
export type CaptureMethod = "automatic" | "manual";

/** A merchant: the tenant of intents, refunds and ledger entries. */
export interface Merchant {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

/** A merchant's goal to collect an amount; tenant-scoped, versioned. */
export interface PaymentIntent {
  readonly id: string;
  readonly merchantId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly captureMethod: CaptureMethod;
  readonly status: IntentStatus;
  /** Held by an authorization and not yet captured. */
  readonly amountCapturableMinor: number;
  readonly amountCapturedMinor: number;
  /** Completed refunds only (pending ones are summed from the refunds). */
  readonly amountRefundedMinor: number;
  /** The provider token attached at creation, if any (never exposed). */
  readonly paymentMethod: string | null;
  readonly providerPaymentId: string | null;
  readonly attemptCount: number;
  readonly lastDeclineCode: string | null;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The outcome of one provider attempt as far as we know it. */
export type AttemptStatus = "pending" | "authorized" | "captured" | "requires_action" | "declined" | "unknown";

/** One provider interaction of an intent, under a stable provider idempotency reference. */
export interface PaymentAttempt {
  readonly id: string;
  readonly intentId: string;
  readonly merchantId: string;
  readonly number: number;
  readonly reference: string;
  readonly paymentMethod: string;
  readonly status: AttemptStatus;
  readonly providerPaymentId: string | null;
  readonly declineCode: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** pending counts against the refundable amount until it succeeds or fails. */
export type RefundStatus = "pending" | "succeeded" | "failed";

/** A full or partial refund of a captured intent. */
export interface Refund {
  readonly id: string;
  readonly intentId: string;
  readonly merchantId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly status: RefundStatus;
  /** The provider idempotency reference of this refund. */
  readonly reference: string;
  readonly failureReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One immutable ledger entry of a merchant, with the source of its transaction. */
export interface BalanceEntry {
  readonly id: string;
  readonly transactionId: string;
  readonly source: string;
  readonly account: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly createdAt: Date;
}

/** One immutable audit record: who did what to which object, and why. */
export interface AuditRecord {
  readonly id: string;
  readonly merchantId: string | null;
  readonly actor: string;
  readonly action: string;
  readonly subjectType: string;
  readonly subjectId: string;
  readonly reason: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

/** The scopes a merchant API key may carry. */
export const merchantScopes = ["payments:write", "refunds:write", "ledger:read", "keys:write", "webhooks:write", "reconciliation:write"] as const;
/** One merchant API key scope. */
export type MerchantScope = (typeof merchantScopes)[number];
