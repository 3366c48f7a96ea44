/** Ledger balancing: money is never created or lost, sources post once, reversals happen once. */
import { Effect, Either } from "effect";
import fc from "fast-check";
import t from "tap";
import { NotFound } from "../../core/kernel/Errors.js";
import * as Ledger from "../../core/kernel/Ledger.js";
import { breaks, holds, outcomeTag, runEither } from "./support/properties.js";

type Post = (state: Ledger.LedgerModel, tx: Ledger.LedgerTransaction) => Effect.Effect<Ledger.LedgerModel, { readonly _tag: string }>;

const accounts = ["cash", "revenue", "fees", "payable", "customer"] as const;
const currencies = ["EUR", "USD", "JPY"] as const;
const source = fc.constantFrom("s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7");
const nonZero = fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((n) => n !== 0);

// A balanced transaction: per currency, some non-zero entries plus one that brings the sum to zero.
const balancedEntries = fc
  .uniqueArray(fc.constantFrom(...currencies), { minLength: 1, maxLength: 2 })
  .chain((cs) =>
    fc.tuple(...cs.map((currency) => fc.array(fc.record({ account: fc.constantFrom(...accounts), amount_minor: nonZero }), { minLength: 1, maxLength: 3 })
      .chain((legs) => {
        const total = legs.reduce((s, l) => s + l.amount_minor, 0);
        const withBalance = total === 0 ? legs : [...legs, { account: "suspense", amount_minor: -total }];
        return fc.constant(withBalance.map((l) => ({ ...l, currency })));
      }))),
  )
  .map((groups) => groups.flat());
// Anything at all: too few entries, zeros, floats, unbalanced sums, mixed currencies.
const faultyEntries = fc.array(
  fc.record({
    account: fc.constantFrom(...accounts),
    amount_minor: fc.oneof(nonZero, fc.constant(0), fc.double({ min: -10, max: 10, noNaN: true })),
    currency: fc.constantFrom(...currencies),
  }),
  { maxLength: 4 },
);
const operation = fc.oneof(
  fc.record({ kind: fc.constant("post" as const), source, entries: balancedEntries }),
  fc.record({ kind: fc.constant("fault" as const), source, entries: faultyEntries }),
  fc.record({ kind: fc.constant("reverse" as const), target: source, source: fc.constantFrom("v0", "v1", "v2", "v3", "s0") }),
  fc.record({ kind: fc.constant("forged" as const), target: source, source: fc.constantFrom("v0", "v1"), entries: balancedEntries }),
);

// After any sequence: the balances sum to zero in every currency; a source is accepted once
// and never replaced; no transaction is reversed twice; and a fresh balanced post is accepted.
const ledgerInvariants = (post: Post) =>
  fc.property(fc.array(operation, { maxLength: 30 }), (operations) => {
    let state = Ledger.emptyLedger;
    const accepted: Ledger.LedgerTransaction[] = [];
    for (const op of operations) {
      const tx: Ledger.LedgerTransaction =
        op.kind === "post" || op.kind === "fault"
          ? { source: op.source, entries: op.entries }
          : op.kind === "reverse"
            ? Ledger.reversalOf(state.transactions.get(op.target) ?? { source: op.target, entries: [] }, op.source)
            : { source: op.source, entries: op.entries, reverses: op.target };
      const result = runEither(post(state, tx));
      if (op.kind === "post" && !state.transactions.has(op.source) && Either.isLeft(result)) return false;
      if (Either.isRight(result)) {
        if (accepted.some((a) => a.source === tx.source)) return false;
        accepted.push(tx);
        state = result.right;
      }
      const totals = new Map<string, bigint>();
      for (const b of Ledger.balances(state)) totals.set(b.currency, (totals.get(b.currency) ?? 0n) + BigInt(b.amount_minor));
      if ([...totals.values()].some((total) => total !== 0n)) return false;
      const reversals = new Map<string, number>();
      for (const a of accepted) if (a.reverses !== undefined) reversals.set(a.reverses, (reversals.get(a.reverses) ?? 0) + 1);
      if ([...reversals.values()].some((n) => n > 1)) return false;
      if (state.transactions.size !== accepted.length || accepted.some((a) => state.transactions.get(a.source) !== a)) return false;
    }
    return true;
  });

t.test("after any sequence of posts, reversals and faults every currency sums to zero", async (t) => {
  await holds(t, ledgerInvariants(Ledger.post));
});

t.test("mutant: a validator that skips the per-currency sum is caught", async (t) => {
  // Every other rule stays: the real `post` judges a copy padded to balance, then the
  // original (possibly unbalanced) transaction is recorded.
  const noSum: Post = (state, tx) => {
    const integral = tx.entries.filter((e) => Number.isSafeInteger(e.amount_minor));
    const padding = [...Ledger.totalsByCurrency(integral)]
      .filter(([, total]) => total !== 0n)
      .map(([currency, total]) => ({ account: "padding", currency, amount_minor: -Number(total) }));
    return Effect.map(Ledger.post(state, { ...tx, entries: [...tx.entries, ...padding] }), () => Ledger.applyPosted(state, tx));
  };
  await breaks(t, ledgerInvariants(noSum));
});

t.test("mutant: a ledger that lets a transaction be reversed twice is caught", async (t) => {
  const reverseTwice: Post = (state, tx) =>
    Effect.flatMap(Ledger.validateTransaction(tx), () =>
      state.transactions.has(tx.source) ? Effect.fail({ _tag: "DuplicateLedgerSource" }) : Effect.succeed(Ledger.applyPosted(state, tx)),
    );
  await breaks(t, ledgerInvariants(reverseTwice));
});

t.test("mutant: a ledger that lets a source be posted again is caught", async (t) => {
  const repost: Post = (state, tx) => Effect.map(Ledger.validateTransaction(tx), () => Ledger.applyPosted(state, tx));
  await breaks(t, ledgerInvariants(repost));
});

t.test("a transaction needs two or more non-zero integer entries summing to zero per currency", async (t) => {
  const e = (account: string, amount_minor: number, currency = "EUR") => ({ account, amount_minor, currency });
  const check = (entries: ReadonlyArray<Ledger.LedgerEntry>) => runEither(Ledger.validateTransaction({ source: "x", entries }));
  t.equal(outcomeTag(check([e("a", 100), e("b", -100)])), "ok");
  t.equal(outcomeTag(check([e("a", 100), e("b", -60), e("c", -40), e("a", 5, "USD"), e("b", -5, "USD")])), "ok");
  for (const [name, entries] of [
    ["unbalanced", [e("a", 100), e("b", -99)]],
    ["one entry", [e("a", 100)]],
    ["no entries", []],
    ["zero amount", [e("a", 0), e("b", 0)]],
    ["float amount", [e("a", 0.5), e("b", -0.5)]],
    ["balanced only across currencies", [e("a", 100), e("b", -100, "USD")]],
    ["unsafe amount", [e("a", 2 ** 60), e("b", -(2 ** 60))]],
  ] as const) {
    const result = check(entries);
    t.ok(Either.isLeft(result) && result.left instanceof Ledger.UnbalancedTransaction, name);
    if (Either.isLeft(result) && result.left instanceof Ledger.UnbalancedTransaction) {
      t.equal(result.left.code, "unbalanced_transaction");
      t.equal(result.left.category, "unprocessable");
    }
  }
  t.equal(outcomeTag(check([e("a", 1, "ZZZ"), e("b", -1, "ZZZ")])), "ValidationFailed");
});

t.test("a reversal negates the original, links to it, and is accepted only once", async (t) => {
  const original: Ledger.LedgerTransaction = {
    source: "charge:1:capture",
    entries: [{ account: "customer", amount_minor: -500, currency: "EUR" }, { account: "revenue", amount_minor: 500, currency: "EUR" }],
  };
  const reversal = Ledger.reversalOf(original, "charge:1:refund");
  t.equal(reversal.reverses, "charge:1:capture");
  t.same(reversal.entries.map((x) => x.amount_minor), [500, -500]);
  const posted = Effect.runSync(Ledger.post(Ledger.emptyLedger, original));
  t.same(Ledger.balances(posted), [
    { account: "customer", currency: "EUR", amount_minor: -500 },
    { account: "revenue", currency: "EUR", amount_minor: 500 },
  ]);
  const reversed = Effect.runSync(Ledger.post(posted, reversal));
  t.ok(Ledger.balances(reversed).every((b) => b.amount_minor === 0));
  const twice = runEither(Ledger.post(reversed, Ledger.reversalOf(original, "charge:1:refund-again")));
  t.ok(Either.isLeft(twice) && twice.left instanceof Ledger.AlreadyReversed);
  if (Either.isLeft(twice) && twice.left instanceof Ledger.AlreadyReversed) {
    t.equal(twice.left.code, "already_reversed");
    t.equal(twice.left.category, "conflict");
    t.equal(twice.left.reversedBy, "charge:1:refund");
  }
  const duplicate = runEither(Ledger.post(reversed, original));
  t.ok(Either.isLeft(duplicate) && duplicate.left instanceof Ledger.DuplicateLedgerSource);
  if (Either.isLeft(duplicate) && duplicate.left instanceof Ledger.DuplicateLedgerSource) {
    t.equal(duplicate.left.code, "duplicate_ledger_source");
    t.equal(duplicate.left.category, "conflict");
  }
  const unknown = runEither(Ledger.post(posted, Ledger.reversalOf({ ...original, source: "nope" }, "r")));
  t.ok(Either.isLeft(unknown) && unknown.left instanceof NotFound);
  const forged = runEither(Ledger.post(posted, { ...reversal, entries: [reversal.entries[1]!, reversal.entries[0]!].map((x) => ({ ...x, amount_minor: x.amount_minor * 2 })) }));
  t.equal(outcomeTag(forged), "ValidationFailed");
});
