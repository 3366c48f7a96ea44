/**
 * Query: the caller's ledger entries, newest first, as keyset pages (GET /v1/balance-transactions).
 * The cursor is the kernel codec over the last entry's id; only the caller's entries are read,
 * so hidden rows never shorten a page.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { requireMerchant } from "./MerchantAccess.js";
import type { BalanceEntry } from "./PaymentIntent.js";

/** The sort key a balance cursor carries: the last entry's id. */
export const BalanceCursor = Schema.Tuple(Schema.String);

/** One page of entries and the cursor of the next (null on the last page). */
export interface BalancePage {
  readonly data: ReadonlyArray<BalanceEntry>;
  readonly nextCursor: string | null;
}

/** Lists the caller's ledger entries (scope ledger:read). */
export const listBalanceTransactions = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<BalancePage, Forbidden | InvalidCursor, PaymentsRepository> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "ledger:read");
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(BalanceCursor, page.cursor))[0];
    const repo = yield* PaymentsRepository;
    const rows = yield* repo.listBalanceEntries({
      merchantId: caller.merchantId,
      ...(before === undefined ? {} : { before }),
      limit: page.limit + 1,
    });
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    return { data, nextCursor: rows.length > page.limit && last !== undefined ? encodeCursor([last.id]) : null };
  }).pipe(Effect.withSpan("Payments.listBalanceTransactions"));
