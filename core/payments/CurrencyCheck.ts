/** Money of one intent is one currency: an amount in another currency is 422 currency_mismatch. */
import { Effect } from "effect";
import { CurrencyMismatch } from "../kernel/Errors.js";

/** Succeeds when `actual` is absent or equals the intent's `expected` currency. */
export const requireCurrency = (expected: string, actual: string | undefined): Effect.Effect<void, CurrencyMismatch> =>
  actual === undefined || actual === expected
    ? Effect.void
    : Effect.fail(new CurrencyMismatch({ expected, actual, detail: `The payment intent is in ${expected}, not ${actual}.` }));
