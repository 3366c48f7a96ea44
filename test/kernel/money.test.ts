/** Money is integer minor units of one ISO 4217 currency: exact, never mixed, never unsafe. */
import { Effect, Either, Schema } from "effect";
import fc from "fast-check";
import t from "tap";
import { CurrencyMismatch } from "../../core/kernel/Errors.js";
import * as Money from "../../core/kernel/Money.js";
import { breaks, holds, outcomeTag, runEither } from "./support/properties.js";

const currencies = ["EUR", "USD", "JPY", "GBP"] as const;
const amount = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.maxSafeInteger(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1),
);
const money = fc.record({ amount_minor: amount, currency: fc.constantFrom(...currencies) });

type Add = (a: Money.Money, b: Money.Money) => Effect.Effect<Money.Money, unknown>;

// The rule for a + b: mixed currencies fail CurrencyMismatch; otherwise the exact sum when it is
// a safe integer, else InvalidAmount. Never a rounded result.
const addIsExactOrRefused = (add: Add) =>
  fc.property(money, money, (a, b) => {
    const result = runEither(add(a, b));
    if (a.currency !== b.currency) return Either.isLeft(result) && result.left instanceof CurrencyMismatch;
    const exact = BigInt(a.amount_minor) + BigInt(b.amount_minor);
    if (exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < BigInt(Number.MIN_SAFE_INTEGER)) {
      return Either.isLeft(result) && result.left instanceof Money.InvalidAmount;
    }
    return Either.isRight(result) && BigInt(result.right.amount_minor) === exact && result.right.currency === a.currency;
  });

t.test("adding money is exact, refuses mixed currencies and refuses leaving the safe integer range", async (t) => {
  await holds(t, addIsExactOrRefused(Money.add));
  await holds(
    t,
    fc.property(money, money, (a, b) => {
      const viaSubtract = runEither(Money.subtract(a, b));
      const viaNegate = runEither(Money.add(a, Money.negate(b)));
      return outcomeTag(viaSubtract as Either.Either<Money.Money, { _tag: string }>) ===
        outcomeTag(viaNegate as Either.Either<Money.Money, { _tag: string }>) &&
        (Either.isLeft(viaSubtract) || (Either.isRight(viaNegate) && viaNegate.right.amount_minor === viaSubtract.right.amount_minor));
    }),
  );
});

t.test("mutant: a float add that ignores currency and range is caught by the property", async (t) => {
  const naive: Add = (a, b) => Effect.succeed({ amount_minor: a.amount_minor + b.amount_minor, currency: a.currency });
  await breaks(t, addIsExactOrRefused(naive));
});

t.test("a sum does not depend on the order of its terms and a + (-a) is zero", async (t) => {
  const eur = fc.record({ amount_minor: amount, currency: fc.constant("EUR") });
  await holds(
    t,
    fc.property(fc.array(eur, { maxLength: 8 }), (terms) => {
      const forward = runEither(Money.sum("EUR", terms));
      const backward = runEither(Money.sum("EUR", [...terms].reverse()));
      const exact = terms.reduce((acc, m) => acc + BigInt(m.amount_minor), 0n);
      const safe = exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= BigInt(Number.MIN_SAFE_INTEGER);
      if (!safe) return Either.isLeft(forward) && Either.isLeft(backward);
      return Either.isRight(forward) && Either.isRight(backward) &&
        forward.right.amount_minor === backward.right.amount_minor && BigInt(forward.right.amount_minor) === exact;
    }),
  );
  await holds(
    t,
    fc.property(money, (a) => {
      const result = runEither(Money.add(a, Money.negate(a)));
      return Either.isRight(result) && Object.is(result.right.amount_minor, 0);
    }),
  );
});

t.test("a sum with a term in another currency fails CurrencyMismatch", async (t) => {
  const result = runEither(Money.sum("EUR", [{ amount_minor: 1, currency: "EUR" }, { amount_minor: 2, currency: "USD" }]));
  t.ok(Either.isLeft(result) && result.left instanceof CurrencyMismatch);
  if (Either.isLeft(result) && result.left instanceof CurrencyMismatch) {
    t.equal(result.left.code, "currency_mismatch");
    t.equal(result.left.expected, "EUR");
    t.equal(result.left.actual, "USD");
  }
  t.same(runEither(Money.sum("JPY", [])), Either.right({ amount_minor: 0, currency: "JPY" }));
});

t.test("the Money schema accepts only safe integers and known ISO 4217 codes", async (t) => {
  const decode = Schema.decodeUnknownEither(Money.Money);
  t.ok(Either.isRight(decode({ amount_minor: 1999, currency: "EUR" })));
  t.ok(Either.isRight(decode({ amount_minor: -5, currency: "JPY" })));
  for (const bad of [
    { amount_minor: 19.99, currency: "EUR" },
    { amount_minor: Number.MAX_SAFE_INTEGER + 1, currency: "EUR" },
    { amount_minor: "1999", currency: "EUR" },
    { amount_minor: 1, currency: "eur" },
    { amount_minor: 1, currency: "ZZZ" },
    { amount_minor: 1, currency: "EURO" },
    { amount_minor: 1 },
  ]) {
    t.ok(Either.isLeft(decode(bad)), `rejects ${JSON.stringify(bad)}`);
  }
  await holds(
    t,
    fc.property(fc.double(), (x) => Either.isRight(decode({ amount_minor: x, currency: "USD" })) === Number.isSafeInteger(x)),
  );
  t.ok(Money.isCurrency("USD"));
  t.notOk(Money.isCurrency("usd"));
  t.notOk(Money.isCurrency("ABC"));
});

t.test("make validates its parts and add refuses a hand-built float amount", async (t) => {
  t.same(runEither(Money.makeMoney(5, "EUR")), Either.right({ amount_minor: 5, currency: "EUR" }));
  t.equal(outcomeTag(runEither(Money.makeMoney(0.5, "EUR"))), "InvalidAmount");
  t.equal(outcomeTag(runEither(Money.makeMoney(5, "XYZ"))), "ValidationFailed");
  const float = runEither(Money.add({ amount_minor: 0.1, currency: "EUR" }, { amount_minor: 0.2, currency: "EUR" }));
  t.ok(Either.isLeft(float) && float.left instanceof Money.InvalidAmount && float.left.code === "invalid_amount");
  t.equal(new Money.InvalidAmount({ amount: 1 }).category, "unprocessable");
});
