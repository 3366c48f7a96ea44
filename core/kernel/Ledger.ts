/**
 * Double-entry ledger balancing. A transaction moves money between accounts in at least two
 * entries that sum to zero per currency, so money is never created or lost; a reversal negates
 * an earlier transaction and links to it, at most once; a unique `source` (for example
 * "charge:<id>:capture") makes posting the same business event twice impossible.
 * The model here is pure; storage keeps the same rules with constraints.
 */
import { Data, Effect, Schema } from "effect";
import { NotFound, ValidationFailed } from "./Errors.js";
import { Currency, isCurrency } from "./Money.js";

/** One side of a transaction: a signed amount on an account. */
export const LedgerEntry = Schema.Struct({
  account: Schema.String,
  amount_minor: Schema.Int,
  currency: Currency,
});
export type LedgerEntry = typeof LedgerEntry.Type;

/** A balanced set of entries, identified by its unique `source`; `reverses` names the source it undoes. */
export const LedgerTransaction = Schema.Struct({
  source: Schema.String.pipe(Schema.minLength(1)),
  entries: Schema.Array(LedgerEntry),
  reverses: Schema.optional(Schema.String),
});
export type LedgerTransaction = typeof LedgerTransaction.Type;

/** The entries do not balance, or are too few or not integers (422 unbalanced_transaction). */
export class UnbalancedTransaction extends Data.TaggedError("UnbalancedTransaction")<{
  readonly source: string;
  readonly detail?: string;
}> {
  readonly code = "unbalanced_transaction";
  readonly category = "unprocessable" as const;
}

/** A transaction with this source was already posted (409 duplicate_ledger_source). */
export class DuplicateLedgerSource extends Data.TaggedError("DuplicateLedgerSource")<{
  readonly source: string;
  readonly detail?: string;
}> {
  readonly code = "duplicate_ledger_source";
  readonly category = "conflict" as const;
}

/** The transaction was already reversed; `reversedBy` is the reversal's source (409 already_reversed). */
export class AlreadyReversed extends Data.TaggedError("AlreadyReversed")<{
  readonly source: string;
  readonly reversedBy: string;
  readonly detail?: string;
}> {
  readonly code = "already_reversed";
  readonly category = "conflict" as const;
}

/** Sums per currency exactly (BigInt), so large amounts cannot round into a false balance. */
export const totalsByCurrency = (entries: ReadonlyArray<{ readonly amount_minor: number; readonly currency: string }>): ReadonlyMap<string, bigint> => {
  const totals = new Map<string, bigint>();
  for (const entry of entries) totals.set(entry.currency, (totals.get(entry.currency) ?? 0n) + BigInt(entry.amount_minor));
  return totals;
};

/**
 * Accepts a transaction of at least two entries, each a non-zero safe integer, summing to zero
 * in every currency; anything else fails UnbalancedTransaction (bad names fail ValidationFailed).
 */
export const validateTransaction = (
  tx: LedgerTransaction,
): Effect.Effect<LedgerTransaction, UnbalancedTransaction | ValidationFailed> => {
  const unbalanced = (detail: string) => Effect.fail(new UnbalancedTransaction({ source: tx.source, detail }));
  if (tx.source.length === 0) {
    return Effect.fail(new ValidationFailed({ errors: [{ path: "source", message: "must not be empty" }] }));
  }
  if (tx.entries.length < 2) return unbalanced("a transaction needs at least two entries");
  for (const [index, entry] of tx.entries.entries()) {
    if (!isCurrency(entry.currency)) {
      return Effect.fail(
        new ValidationFailed({ errors: [{ path: `entries.${index}.currency`, message: "expected an ISO 4217 currency code" }] }),
      );
    }
    if (!Number.isSafeInteger(entry.amount_minor) || entry.amount_minor === 0) {
      return unbalanced(`entry ${index} must be a non-zero integer amount of minor units`);
    }
  }
  for (const [currency, total] of totalsByCurrency(tx.entries)) {
    if (total !== 0n) return unbalanced(`entries in ${currency} sum to ${total}, not zero`);
  }
  return Effect.succeed(tx);
};

/** The transaction that undoes `tx`: every entry negated, linked to it by `reverses`. */
export const reversalOf = (tx: LedgerTransaction, newSource: string): LedgerTransaction => ({
  source: newSource,
  entries: tx.entries.map((entry) => ({ ...entry, amount_minor: -entry.amount_minor })),
  reverses: tx.source,
});

/** The pure ledger: posted transactions by source, and which reversal undid which original. */
export interface LedgerModel {
  readonly transactions: ReadonlyMap<string, LedgerTransaction>;
  readonly reversedBy: ReadonlyMap<string, string>;
}

/** A ledger with nothing posted. */
export const emptyLedger: LedgerModel = { transactions: new Map(), reversedBy: new Map() };

/** Records an already checked transaction; `post` is the checked way in. */
export const applyPosted = (state: LedgerModel, tx: LedgerTransaction): LedgerModel => {
  const transactions = new Map(state.transactions);
  transactions.set(tx.source, tx);
  const reversedBy = new Map(state.reversedBy);
  if (tx.reverses !== undefined) reversedBy.set(tx.reverses, tx.source);
  return { transactions, reversedBy };
};

const sameEntries = (a: ReadonlyArray<LedgerEntry>, b: ReadonlyArray<LedgerEntry>): boolean =>
  a.length === b.length &&
  a.every((entry, i) => {
    const other = b[i];
    return other !== undefined && other.account === entry.account && other.currency === entry.currency && other.amount_minor === entry.amount_minor;
  });

/**
 * Posts a transaction: it must balance, its source must be new, and a reversal must exactly
 * negate an existing transaction that was not reversed before.
 */
export const post = (
  state: LedgerModel,
  tx: LedgerTransaction,
): Effect.Effect<LedgerModel, UnbalancedTransaction | ValidationFailed | DuplicateLedgerSource | AlreadyReversed | NotFound> =>
  Effect.gen(function* () {
    yield* validateTransaction(tx);
    if (state.transactions.has(tx.source)) {
      return yield* Effect.fail(new DuplicateLedgerSource({ source: tx.source, detail: `source ${tx.source} was already posted` }));
    }
    if (tx.reverses !== undefined) {
      const original = state.transactions.get(tx.reverses);
      if (original === undefined) {
        return yield* Effect.fail(new NotFound({ resource: "ledger_transaction", detail: tx.reverses }));
      }
      const reversedBy = state.reversedBy.get(tx.reverses);
      if (reversedBy !== undefined) {
        return yield* Effect.fail(
          new AlreadyReversed({ source: tx.reverses, reversedBy, detail: `${tx.reverses} was already reversed by ${reversedBy}` }),
        );
      }
      if (!sameEntries(tx.entries, reversalOf(original, tx.source).entries)) {
        return yield* Effect.fail(
          new ValidationFailed({ errors: [{ path: "entries", message: "a reversal must negate every entry of the original" }] }),
        );
      }
    }
    return applyPosted(state, tx);
  });

/** One account's balance in one currency. */
export interface LedgerBalance {
  readonly account: string;
  readonly currency: string;
  readonly amount_minor: number;
}

/** Every (account, currency) balance, sorted by account then currency. */
export const balances = (state: LedgerModel): ReadonlyArray<LedgerBalance> => {
  const byKey = new Map<string, { account: string; currency: string; total: bigint }>();
  for (const tx of state.transactions.values()) {
    for (const entry of tx.entries) {
      const key = JSON.stringify([entry.account, entry.currency]);
      const row = byKey.get(key) ?? { account: entry.account, currency: entry.currency, total: 0n };
      row.total += BigInt(entry.amount_minor);
      byKey.set(key, row);
    }
  }
  return [...byKey.values()]
    .map((row) => ({ account: row.account, currency: row.currency, amount_minor: Number(row.total) }))
    .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
};
