/** The one bridge from Kysely to Effect used by every repository: `runQuery` (a query built per call), `runStatement` (one compiled once) and `sendStatement`/`sendEach` (writes nobody reads the answer of). */
import { Effect } from "effect";
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from "kysely";
import type { RowCodec } from "./RowCodec.js";
import type { SqlDatabase } from "./SqlDatabase.js";
import { runBound, sendBound } from "./runOnExecutor.js";
import { currentExecutor } from "./Transactions.js";

/**
 * Runs `query` on the current executor (the open transaction, else the pool). Infrastructure
 * failures are not part of any port's contract, so they become defects here, at the edge.
 */
export const runQuery = <A>(db: SqlDatabase, query: (executor: Kysely<any>) => Promise<A>): Effect.Effect<A> =>
  Effect.flatMap(currentExecutor(db), (executor) =>
    Effect.tryPromise({ try: () => query(executor), catch: (error) => error }),
  ).pipe(Effect.orDie);

/**
 * Runs one statement made by {@link compiledOnce} (or its siblings) on the current executor, as
 * `runQuery` would. On a synchronous driver (SQLite) that can run it at once on that executor,
 * it runs without a promise: Kysely's executor and the async boundary cost more than the
 * statement itself. On Postgres a transaction's statement goes straight to its connection.
 */
export const runStatement = <P>(db: SqlDatabase, statement: CompiledStatement<P>, params: P): Effect.Effect<QueryResult<any>> =>
  Effect.flatMap(currentExecutor(db), (executor) => runBound(db, executor, statement.bind(executor, params)));

/**
 * Runs a write whose answer the caller does not read and whose failure no caller handles (an
 * event or outbox row under a fresh id). In a Postgres transaction it is sent without waiting
 * (`SqlDatabase.sendLater`): the transaction's next statement or its COMMIT waits for it, and
 * if it failed the transaction fails with its error (a defect) and leaves nothing. Elsewhere it
 * runs as {@link runStatement} does.
 */
export const sendStatement = <P>(db: SqlDatabase, statement: CompiledStatement<P>, params: P): Effect.Effect<void> =>
  Effect.flatMap(currentExecutor(db), (executor) => sendBound(db, executor, statement.bind(executor, params)));

/** {@link sendStatement} for each of `rows`, in order: a record's rows of a fixed shape without a multi-row insert built per call. */
export const sendEach = <P>(db: SqlDatabase, statement: CompiledStatement<P>, rows: ReadonlyArray<P>): Effect.Effect<void> =>
  Effect.forEach(rows, (row) => sendStatement(db, statement, row), { discard: true });

export { enableSpanStackTraces, span } from "./StorageSpans.js";

/**
 * A statement compiled once: called, it executes on `executor` with `params` bound (inside
 * `runQuery` callbacks); `bind` gives the compiled query without executing it (`runStatement`).
 */
export interface CompiledStatement<P> {
  (executor: Kysely<any>, params: P): Promise<QueryResult<any>>;
  readonly bind: (executor: Kysely<any>, params: P) => CompiledQuery;
}

/** The statement whose compiled query `bind` gives. */
const statementOf = <P>(bind: (executor: Kysely<any>, params: P) => CompiledQuery): CompiledStatement<P> =>
  Object.assign((executor: Kysely<any>, params: P) => executor.executeQuery(bind(executor, params)), { bind });

/** A parameter slot in a query built once by {@link compiledOnce}. */
class Slot {
  constructor(readonly key: string) {}
}

/**
 * A hot query built and compiled once, then executed with fresh parameter values: Kysely builds
 * and compiles every query on every call otherwise. `build` receives `param(key)`, a placeholder
 * that stands for a value (never for a list, an identifier or a piece of SQL); each call
 * substitutes `params[key]` for it. `build` may also return a raw `sql` statement. The compiled
 * text is kept per dialect adapter, i.e. per database handle this is created for.
 */
export const compiledOnce = <P extends Record<string, unknown>>(
  build: (db: Kysely<any>, param: (key: keyof P & string) => any) => Compilable<unknown> | RawBuilder<unknown>,
): CompiledStatement<P> => {
  let compiled: CompiledQuery | undefined;
  const bind = (executor: Kysely<any>, params: P): CompiledQuery => {
    if (compiled === undefined) {
      const query = build(executor, (key) => new Slot(key));
      // A raw statement compiles against an executor (it has no compile() of its own).
      compiled = "isRawBuilder" in query ? query.compile(executor) : query.compile();
    }
    const template = compiled;
    const parameters = template.parameters.map((value) => (value instanceof Slot ? params[value.key] : value));
    return { ...template, parameters };
  };
  return statementOf(bind);
};

/** IN lists of up to this many values get a statement compiled once per length (every order status, a cart's variants). */
const compiledListLengths = 8;

/**
 * A query with one IN list (`params.list`) whose length varies per call (`build` gets the list, as slots): compiled
 * once per length up to compiledListLengths, built per call with the values beyond it. Like
 * {@link compiledOnce}, made once per database handle.
 */
export const compiledPerListLength = <P extends Record<string, unknown>>(
  build: (ex: Kysely<any>, p: (key: keyof P & string) => any, list: ReadonlyArray<unknown>) => Compilable<unknown>,
): CompiledStatement<P & { readonly list: ReadonlyArray<unknown> }> => {
  const byLength = Array.from({ length: compiledListLengths + 1 }, (_, n) =>
    compiledOnce<Record<string, unknown>>((ex, p) => build(ex, p, Array.from({ length: n }, (_, i) => p(`list${i}`)))),
  );
  const bind = (ex: Kysely<any>, params: P & { readonly list: ReadonlyArray<unknown> }): CompiledQuery => {
    const { list } = params;
    const compiled = byLength[list.length];
    if (compiled === undefined) return build(ex, (key) => params[key], list).compile();
    const values: Record<string, unknown> = { ...params };
    list.forEach((value, i) => (values[`list${i}`] = value));
    return compiled.bind(ex, values);
  };
  return statementOf(bind);
};

/** `{ column: param(column) }` for each of `columns`: the slots of a row in a {@link compiledOnce} query. */
export const slotsOf = (columns: ReadonlyArray<string>, param: (key: string) => unknown): Record<string, unknown> =>
  Object.fromEntries(columns.map((column) => [column, param(column)]));

/**
 * A statement per row count, each built by `build(n)` once and kept: for statements of n rows or
 * n values (a multi-row insert), whose text depends on n. Keep the counts used few (bounded).
 */
export const compiledPerRowCount = <P extends Record<string, unknown>>(build: (n: number) => CompiledStatement<P>) => {
  const made = new Map<number, CompiledStatement<P>>();
  return (n: number): CompiledStatement<P> => {
    let statement = made.get(n);
    if (statement === undefined) {
      statement = build(n);
      made.set(n, statement);
    }
    return statement;
  };
};

/**
 * `insert into <table> (<every column of the codec>) values (...)`, compiled once, for one
 * record: the insert every repository makes of a whole record (`codec.toRow` gives each
 * column a value, null for an absent nullable field).
 */
export const compiledInsert = <T>(table: string, codec: RowCodec<T>): CompiledStatement<T> => {
  const insert = compiledOnce<Record<string, unknown>>((ex, p) => ex.insertInto(table).values(slotsOf(codec.columns, p)));
  return statementOf((executor, record: T) => insert.bind(executor, codec.toRow(record)));
};

/**
 * `update <table> set <every other column of the codec> where <key columns> = ... and version = ?`,
 * compiled once: the optimistic update a repository makes of a versioned record (no row changed:
 * another writer got there first). `unchanging` columns are never rewritten (creation facts, tenant).
 */
export const compiledUpdateIfVersion = <T>(
  table: string,
  codec: RowCodec<T>,
  columns: { readonly key: ReadonlyArray<string>; readonly unchanging?: ReadonlyArray<string> },
): CompiledStatement<{ readonly record: T; readonly expectedVersion: number }> => {
  const notSet = new Set([...columns.key, ...(columns.unchanging ?? [])]);
  const update = compiledOnce<Record<string, unknown>>((ex, p) => {
    let query = ex.updateTable(table).set(slotsOf(codec.columns.filter((column) => !notSet.has(column)), p));
    for (const column of columns.key) query = query.where(column, "=", p(column));
    return query.where("version", "=", p("expected_version"));
  });
  return statementOf((executor, { record, expectedVersion }) =>
    update.bind(executor, { ...codec.toRow(record), expected_version: expectedVersion }),
  );
};

/** A database count or id (pg returns bigint columns as strings) as a JS number. */
export const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value));
