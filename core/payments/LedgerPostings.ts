/**
 * The payment module's double-entry postings (illustrative, not a bank ledger). A capture moves
 * money from the provider clearing account into what we owe the merchant; a refund moves it
 * back. Each posting balances per currency and has a unique source, so one business event is
 * never posted twice (core/kernel/Ledger.ts checks; the database's UNIQUE source enforces).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { validateTransaction, type DuplicateLedgerSource, type LedgerTransaction, type UnbalancedTransaction } from "../kernel/Ledger.js";
import type { ValidationFailed } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";

/** Money held at the provider for a merchant (debit-positive). */
export const clearingAccount = (merchantId: string): string => `merchant:${merchantId}:provider_clearing`;
/** What the platform owes a merchant (credit-negative). */
export const merchantBalanceAccount = (merchantId: string): string => `merchant:${merchantId}:balance`;

/** The ledger source of an intent's capture: one per intent. */
export const captureSource = (intentId: string): string => `payment_intent:${intentId}:capture`;
/** The ledger source of a refund. */
export const refundSource = (refundId: string): string => `refund:${refundId}`;

/** The posting of a capture of `amountMinor`. */
export const capturePosting = (merchantId: string, intentId: string, amountMinor: number, currency: string): LedgerTransaction => ({
  source: captureSource(intentId),
  entries: [
    { account: clearingAccount(merchantId), amount_minor: amountMinor, currency },
    { account: merchantBalanceAccount(merchantId), amount_minor: -amountMinor, currency },
  ],
});

/** The posting of a completed refund. */
export const refundPosting = (merchantId: string, refundId: string, amountMinor: number, currency: string): LedgerTransaction => ({
  source: refundSource(refundId),
  entries: [
    { account: merchantBalanceAccount(merchantId), amount_minor: amountMinor, currency },
    { account: clearingAccount(merchantId), amount_minor: -amountMinor, currency },
  ],
});

/** Validates and posts a transaction for `merchantId` (inside the caller's transaction). */
export const postLedger = (
  merchantId: string,
  transaction: LedgerTransaction,
): Effect.Effect<void, UnbalancedTransaction | ValidationFailed | DuplicateLedgerSource, PaymentsRepository | Ids> =>
  Effect.gen(function* () {
    const checked = yield* validateTransaction(transaction);
    const repo = yield* PaymentsRepository;
    const ids = yield* Ids;
    const id = yield* ids.next;
    const entryIds = yield* Effect.forEach(checked.entries, () => ids.next);
    yield* repo.postLedger({ id, entryIds, merchantId, transaction: checked, createdAt: yield* now });
  });
