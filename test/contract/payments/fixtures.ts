/**
 * Records the payment kits build on: ids that sort in creation order on every store, and
 * merchants with intents written through the PaymentsRepository (every payment record belongs
 * to a merchant).
 */
import { Effect } from "effect";
import type { Merchant } from "../../../core/payments/model/Merchant.js";
import type { PaymentAttempt } from "../../../core/payments/model/PaymentAttempt.js";
import type { PaymentIntent } from "../../../core/payments/model/PaymentIntent.js";
import type { Refund } from "../../../core/payments/model/Refund.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { T0 } from "../Kit.js";
import { MerchantId, PaymentAttemptId, PaymentIntentId, RefundId } from "../../../core/payments/model/Ids.js";

/** A time-ordered, UUID-shaped id: `uid("a", 2)` < `uid("a", 10)`, and ids of a kind sort together. */
export const uid = (kind: string, n: number): string => {
  const prefix = Buffer.from(kind).toString("hex").padEnd(8, "0").slice(0, 8);
  return `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
};

/** Merchant `n` (id `uid("mer", n)`). */
export const merchantRecord = (n: number): Merchant => ({ id: MerchantId.make(uid("mer", n)), name: `Merchant ${n}`, createdAt: T0 });

/** Intent `n` of `merchantId` (version 1, awaiting a payment method). */
export const intentRecord = (merchantId: MerchantId, n: number, overrides: Partial<PaymentIntent> = {}): PaymentIntent => ({
  id: PaymentIntentId.make(uid("pi", n)),
  merchantId,
  amountMinor: 1000,
  currency: "USD",
  captureMethod: "automatic",
  status: "requires_payment_method",
  amountCapturableMinor: 0,
  amountCapturedMinor: 0,
  amountRefundedMinor: 0,
  paymentMethod: null,
  providerPaymentId: null,
  lastDeclineCode: null,
  attemptCount: 0,
  version: 1,
  createdAt: T0,
  updatedAt: T0,
  ...overrides,
});

/** The fields of an intent whose whole amount (1000) was captured: what a refund needs. */
export const capturedOverrides: Partial<PaymentIntent> = { status: "succeeded", amountCapturedMinor: 1000, attemptCount: 1 };

/** Attempt `number` of `intent` (id `uid("att", n)`). */
export const attemptRecord = (intent: PaymentIntent, n: number, number: number, overrides: Partial<PaymentAttempt> = {}): PaymentAttempt => ({
  id: PaymentAttemptId.make(uid("att", n)),
  intentId: intent.id,
  merchantId: intent.merchantId,
  number,
  reference: `${intent.id}:${number}`,
  paymentMethod: "pm_card_visa",
  status: "pending",
  providerPaymentId: null,
  declineCode: null,
  createdAt: T0,
  updatedAt: T0,
  ...overrides,
});

/** Refund `n` of `intent`. */
export const refundRecord = (intent: PaymentIntent, n: number, amountMinor: number, overrides: Partial<Refund> = {}): Refund => ({
  id: RefundId.make(uid("re", n)),
  intentId: intent.id,
  merchantId: intent.merchantId,
  amountMinor,
  currency: intent.currency,
  status: "pending",
  reference: `refund:${uid("re", n)}`,
  failureReason: null,
  requestKey: null,
  createdAt: T0,
  updatedAt: T0,
  ...overrides,
});

/** Writes merchant `n` unless present; answers it. */
export const seedMerchant = (n: number): Effect.Effect<Merchant, never, PaymentsRepository> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const merchant = merchantRecord(n);
    if ((yield* repo.findMerchant(merchant.id)) === null) yield* repo.insertMerchant(merchant);
    return merchant;
  });

/**
 * Posts the ledger transaction a succeeded row needs first (payments migration 30): `source` of
 * `merchantId`, `amountMinor` between the merchant's own accounts; ids from `uid(kind, n)`.
 */
export const seedPosting = (merchantId: string, source: string, amountMinor: number, currency: string, kind: string, n: number): Effect.Effect<void, never, PaymentsRepository> =>
  Effect.flatMap(PaymentsRepository, (repo) =>
    repo.postLedger({
      id: uid(kind, n),
      entryIds: [uid(kind, 1000 + n * 2), uid(kind, 1001 + n * 2)],
      merchantId,
      transaction: {
        source,
        entries: [
          { account: `merchant:${merchantId}:provider_clearing`, amount_minor: amountMinor, currency },
          { account: `merchant:${merchantId}:balance`, amount_minor: -amountMinor, currency },
        ],
      },
      createdAt: T0,
    }),
  ).pipe(Effect.orDie);

/** Writes merchant `merchantN` and its intent `intentN` (a succeeded one after its capture's posting); answers the intent. */
export const seedIntent = (merchantN: number, intentN: number, overrides: Partial<PaymentIntent> = {}): Effect.Effect<PaymentIntent, never, PaymentsRepository> =>
  Effect.gen(function* () {
    const merchant = yield* seedMerchant(merchantN);
    const intent = intentRecord(merchant.id, intentN, overrides);
    if (intent.status === "succeeded") yield* seedPosting(merchant.id, `payment_intent:${intent.id}:capture`, intent.amountCapturedMinor, intent.currency, "cap", intentN);
    yield* Effect.flatMap(PaymentsRepository, (repo) => repo.insertIntent(intent));
    return intent;
  });

/** Writes `refund` (a succeeded one after its posting); `n` numbers the posting's ids. */
export const seedRefund = (refund: Refund, n: number): Effect.Effect<void, never, PaymentsRepository> =>
  Effect.gen(function* () {
    if (refund.status === "succeeded") yield* seedPosting(refund.merchantId, `refund:${refund.id}`, refund.amountMinor, refund.currency, "ref", n);
    yield* Effect.flatMap(PaymentsRepository, (repo) => repo.insertRefund(refund));
  });
