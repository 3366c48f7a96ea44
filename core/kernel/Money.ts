/**
 * Money: an integer amount of minor units (cents, yen, ...) plus an ISO 4217 currency code.
 * Never a float: every amount is a safe integer, and arithmetic that would leave the safe range
 * fails instead of silently rounding. Amounts of different currencies never combine.
 */
import { Data, Effect, Schema } from "effect";
import { CurrencyMismatch, ValidationFailed } from "./Errors.js";

// Intl knows the active ISO 4217 codes; an engine without it falls back to the shape check only.
const knownCurrencies: ReadonlySet<string> | null =
  typeof Intl !== "undefined" && typeof Intl.supportedValuesOf === "function"
    ? new Set(Intl.supportedValuesOf("currency"))
    : null;

/** True when `code` is three uppercase letters naming a known ISO 4217 currency. */
export const isCurrency = (code: string): boolean =>
  /^[A-Z]{3}$/.test(code) && (knownCurrencies === null || knownCurrencies.has(code));

/** An ISO 4217 currency code such as "EUR" (uppercase, known to Intl). */
export const Currency = Schema.String.pipe(
  Schema.filter((code) => isCurrency(code) || `expected an ISO 4217 currency code, got ${JSON.stringify(code)}`, {
    // Property tests draw real codes (random strings would almost never be one).
    arbitrary: () => (fc) => fc.constantFrom(...(knownCurrencies === null ? ["EUR", "USD", "JPY"] : [...knownCurrencies])),
  }),
);
export type Currency = typeof Currency.Type;

/** An integer number of minor units within Number's safe integer range. */
export const AmountMinor = Schema.Int.pipe(
  Schema.filter((n) => Number.isSafeInteger(n) || "expected a safe integer amount of minor units"),
);

/** Wire and storage shape of an amount of money. */
export const Money = Schema.Struct({
  amount_minor: AmountMinor,
  currency: Currency,
});
export type Money = typeof Money.Type;

/** An amount is not a safe integer, or arithmetic on amounts would leave the safe range (422). */
export class InvalidAmount extends Data.TaggedError("InvalidAmount")<{
  readonly amount: number | string;
  readonly detail?: string;
}> {
  readonly code = "invalid_amount";
  readonly category = "unprocessable" as const;
}

const checkAmount = (amount: number): Effect.Effect<number, InvalidAmount> =>
  Number.isSafeInteger(amount)
    ? Effect.succeed(amount === 0 ? 0 : amount) // normalises -0, which JSON cannot carry
    : Effect.fail(new InvalidAmount({ amount, detail: "amount must be a safe integer of minor units" }));

const checkSame = (expected: string, actual: string): Effect.Effect<void, CurrencyMismatch> =>
  expected === actual
    ? Effect.void
    : Effect.fail(new CurrencyMismatch({ expected, actual, detail: `cannot combine ${expected} with ${actual}` }));

/** Builds money from raw parts, checking the amount and the currency code. */
export const makeMoney = (
  amount_minor: number,
  currency: string,
): Effect.Effect<Money, InvalidAmount | ValidationFailed> =>
  isCurrency(currency)
    ? Effect.map(checkAmount(amount_minor), (amount) => ({ amount_minor: amount, currency }))
    : Effect.fail(
        new ValidationFailed({ errors: [{ path: "currency", message: "expected an ISO 4217 currency code" }] }),
      );

/** Zero in the given currency. */
export const zeroMoney = (currency: Currency): Money => ({ amount_minor: 0, currency });

// Sums exactly in BigInt so the result does not depend on the order of the terms.
const exactSum = (currency: string, amounts: ReadonlyArray<Money>): Effect.Effect<Money, InvalidAmount | CurrencyMismatch> =>
  Effect.gen(function* () {
    let total = 0n;
    for (const money of amounts) {
      yield* checkSame(currency, money.currency);
      yield* checkAmount(money.amount_minor);
      total += BigInt(money.amount_minor);
    }
    if (total > BigInt(Number.MAX_SAFE_INTEGER) || total < BigInt(Number.MIN_SAFE_INTEGER)) {
      return yield* Effect.fail(new InvalidAmount({ amount: total.toString(), detail: "sum leaves the safe integer range" }));
    }
    const amount = Number(total);
    return { amount_minor: amount === 0 ? 0 : amount, currency };
  });

/** a + b; fails on mixed currencies or a result outside the safe integer range. */
export const add = (a: Money, b: Money): Effect.Effect<Money, InvalidAmount | CurrencyMismatch> =>
  exactSum(a.currency, [a, b]);

/** The amount with its sign flipped (never -0). */
export const negate = (a: Money): Money => ({ amount_minor: a.amount_minor === 0 ? 0 : -a.amount_minor, currency: a.currency });

/** a - b; fails on mixed currencies or a result outside the safe integer range. */
export const subtract = (a: Money, b: Money): Effect.Effect<Money, InvalidAmount | CurrencyMismatch> =>
  exactSum(a.currency, [a, negate(b)]);

/** The total of `amounts` in `currency` (zero when empty); every term must be in that currency. */
export const sum = (
  currency: Currency,
  amounts: ReadonlyArray<Money>,
): Effect.Effect<Money, InvalidAmount | CurrencyMismatch> => exactSum(currency, amounts);
