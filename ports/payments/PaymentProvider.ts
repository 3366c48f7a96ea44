/**
 * The payment provider port: the regulated party that holds card data and moves money. Every
 * call carries OUR stable idempotency reference, so the same reference never acts twice, and
 * is made outside any database transaction. A lost or late answer fails
 * ProviderOutcomeUnknown: the provider may or may not have acted.
 */
import { Context, Effect } from "effect";
import type { Money } from "../../core/kernel/Money.js";
import type { ProviderOutcomeUnknown } from "../../core/payments/model/ProviderErrors.js";

/** The answer to an authorization (with or without immediate capture). */
export type AuthorizeResult =
  | { readonly _tag: "Authorized"; readonly providerPaymentId: string; readonly capturedMinor: number }
  | { readonly _tag: "RequiresAction"; readonly providerPaymentId: string }
  | { readonly _tag: "Declined"; readonly declineCode: string };

/** The answer to a capture, refund or void. */
export type SettleResult =
  | { readonly _tag: "Done"; readonly amountMinor: number }
  | { readonly _tag: "Rejected"; readonly reason: string };

/** What the provider knows about a payment, looked up by our reference. */
export interface ProviderPayment {
  readonly reference: string;
  readonly providerPaymentId: string | null;
  readonly status: "authorized" | "captured" | "requires_action" | "declined" | "voided";
  readonly amount: Money;
  readonly capturedMinor: number;
  readonly refundedMinor: number;
  readonly declineCode: string | null;
}

/** The provider operations the payment core needs. */
export interface PaymentProvider {
  /** Authorizes `amount` on a payment method token; captures at once when `capture`. */
  readonly authorize: (req: {
    readonly reference: string;
    readonly amount: Money;
    readonly paymentMethod: string;
    readonly capture: boolean;
  }) => Effect.Effect<AuthorizeResult, ProviderOutcomeUnknown>;
  /** Captures up to the authorized amount (partial allowed); the rest is released. */
  readonly capture: (req: {
    readonly reference: string;
    readonly providerPaymentId: string;
    readonly amount: Money;
  }) => Effect.Effect<SettleResult, ProviderOutcomeUnknown>;
  /** Refunds part or all of a captured payment. */
  readonly refund: (req: {
    readonly reference: string;
    readonly providerPaymentId: string;
    readonly amount: Money;
  }) => Effect.Effect<SettleResult, ProviderOutcomeUnknown>;
  /** Releases an uncaptured authorization. */
  readonly void: (req: { readonly reference: string; readonly providerPaymentId: string }) => Effect.Effect<SettleResult, ProviderOutcomeUnknown>;
  /** What the provider did under an authorization reference; null when it never saw it. */
  readonly lookup: (reference: string) => Effect.Effect<ProviderPayment | null, ProviderOutcomeUnknown>;
}
export const PaymentProvider = Context.GenericTag<PaymentProvider>("domainkit/payments/PaymentProvider");
