/**
 * Query: the caller's ledger entries, newest first, as keyset pages (GET /v1/balance-transactions).
 * The cursor is the kernel codec over the last entry's id; only the caller's entries are read,
 * so hidden rows never shorten a page.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import type { Forbidden, InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { requireMerchant } from "./MerchantAccess.js";
import type { BalanceEntry } from "./model/BalanceEntry.js";
import { withSpan } from "../kernel/Span.js";

/** Lists the caller's ledger entries (scope ledger:read). */
export const listBalanceTransactions = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<BalanceEntry>, Forbidden | InvalidCursor, PaymentsRepository> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "ledger:read");
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const repo = yield* PaymentsRepository;
    const rows = yield* repo.listBalanceEntries({
      merchantId: caller.merchantId,
      ...(before === undefined ? {} : { before }),
      limit: page.limit + 1,
    });
    return pageFrom(rows, page.limit, (entry) => [entry.id]);
  }).pipe(withSpan("Payments.listBalanceTransactions"));
