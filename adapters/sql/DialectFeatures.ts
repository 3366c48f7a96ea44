/**
 * What differs between SQLite and Postgres for the shared repositories: how a transaction
 * begins, how times and JSON are stored, and how a claim query skips rows other workers hold.
 * Each dialect folder supplies one; repositories never branch on the dialect name themselves.
 */
import type { Expression, RawBuilder, SelectQueryBuilder } from "kysely";


/** The two SQL dialects domainkit speaks. */
export type SqlDialect = "sqlite" | "postgres";

/** The dialect-specific pieces the repositories in adapters/sql rely on. */
export interface DialectFeatures {
  readonly dialect: SqlDialect;
  /** The statement that opens a write transaction (SQLite takes the write lock up front). */
  readonly beginSql: string;
  /** A time as a query parameter or column value (ISO text on SQLite, timestamptz on Postgres). */
  readonly timeToDb: (date: Date) => unknown;
  /** A stored time back as a Date. */
  readonly timeFromDb: (value: unknown) => Date;
  /** A JSON value as a column value (text on SQLite, jsonb on Postgres). */
  readonly jsonToDb: (value: unknown) => unknown;
  /** A stored JSON value back as a JS value. */
  readonly jsonFromDb: (value: unknown) => unknown;
  /**
   * Makes a claim sub-select skip rows locked by other transactions (FOR UPDATE SKIP LOCKED
   * on Postgres). On SQLite the claim already runs under the single write lock, so it is a no-op.
   */
  readonly skipLocked: <DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
  ) => SelectQueryBuilder<DB, TB, O>;
  /**
   * `column` is one of the keys `batch` selects (a bounded sub-select, as in a purge batch). On
   * Postgres the batch is computed first, as an array (`= ANY (ARRAY(...))`), so the outer
   * statement finds its rows by index: as `IN (...)` the planner joined the batch to a
   * sequential scan of the whole table. SQLite runs `IN (...)` that way already.
   */
  readonly keyInBatch: (column: string, batch: Expression<unknown>) => RawBuilder<boolean>;
  /** The column that locates a row within its table for one statement: `ctid` on Postgres, `rowid` on SQLite. */
  readonly rowLocator: string;
}
