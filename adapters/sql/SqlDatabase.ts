/**
 * One open database: its dialect, a Kysely instance over the driver, and what differs by
 * dialect (times and JSON, cross-process signals, the realtime bus), supplied by the driver that
 * opened it (adapters/sqlite, adapters/postgres). Repositories are written once against `db`;
 * adapters/sql never imports a driver folder (docs/architecture.md, Rings).
 */
import type { CompiledQuery, Kysely, QueryResult } from "kysely";
import type { RealtimeBus } from "../../ports/Realtime.js";
import type { WorkSignals } from "../../ports/WorkSignals.js";
import type { DialectFeatures, SqlDialect } from "./DialectFeatures.js";

export type { SqlDialect } from "./DialectFeatures.js";

/** An open SQLite or Postgres database (see adapters/sqlite and adapters/postgres). */
export interface SqlDatabase {
  readonly dialect: SqlDialect;
  // Kysely<any>: modules own their tables, so no single schema type can describe them all.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly db: Kysely<any>;
  /**
   * Where single statements outside a transaction go, when the driver routes them (SQLite: a
   * SELECT to the read connection, anything else to the write connection for that statement).
   * It cannot open transactions. Absent: `db` serves them (Postgres: its pool).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly autocommit?: Kysely<any>;
  /**
   * Where a transaction gets its connection, taken whole and handed back by Transactions, which
   * runs BEGIN and COMMIT on it directly: SQLite's one write connection (`exclusive`, taken
   * synchronously when free), or a connection of Postgres's pool (`pooled`).
   */
  readonly transactionConnections: ExclusiveConnection | PooledConnections;
  /**
   * A synchronous driver's way to run a compiled statement at once on `executor` (the held write
   * connection of a transaction, or the autocommit executor when its connection is free); it
   * answers undefined when it cannot, and the statement goes through Kysely. Absent: always Kysely.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly runNow?: (executor: Kysely<any>, query: CompiledQuery) => QueryResult<any> | undefined;
  /**
   * An asynchronous driver's way to send a compiled statement straight to the connection behind
   * `executor` (a transaction's pooled connection), without Kysely's executor around it; it
   * answers undefined for any other executor. Absent: always Kysely.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly sendNow?: (executor: Kysely<any>, query: CompiledQuery) => Promise<QueryResult<any>> | undefined;
  /**
   * An asynchronous driver's way to send a write whose answer nobody reads on a transaction's
   * connection without waiting for it (Postgres pipelines it): the transaction's next statement
   * or its COMMIT waits for it, and its failure fails the transaction. Answers false for any
   * other executor (the caller then runs the write as usual). Absent: never.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly sendLater?: (executor: Kysely<any>, query: CompiledQuery) => boolean;
  /** Times, JSON and row-lock differences of this dialect. */
  readonly features: DialectFeatures;
  /** The WorkSignals of this database: LISTEN/NOTIFY on Postgres, in-process after commit on SQLite. */
  readonly workSignals: () => WorkSignals;
  /** A RealtimeBus over this database; `close()` it on shutdown. */
  readonly realtimeBus: () => Promise<ClosableRealtimeBus>;
  readonly close: () => Promise<void>;
}

/**
 * A database's single write connection, taken by one holder at a time. A synchronous driver's:
 * taking it when free, BEGIN and COMMIT cost no promise, connection object or Kysely instance.
 */
export interface ExclusiveConnection {
  readonly kind: "exclusive";
  /** Queries on the connection; only while it is held. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly executor: Kysely<any>;
  /** Takes the connection when it is free now. */
  readonly tryTake: () => boolean;
  /** Waits for the connection, in turn, to begin a transaction on it. */
  readonly take: () => Promise<void>;
  /**
   * Begins the holder's transaction with `beginSql` (BEGIN IMMEDIATE), or inside a group commit's
   * open transaction (adapters/sqlite/GroupCommit.ts). When it throws, the connection is handed on.
   */
  readonly begin: (beginSql: string) => void;
  /**
   * Ends the holder's transaction (COMMIT, or ROLLBACK of its own work) and hands the connection
   * on. Undefined when settled now (a failed COMMIT is thrown), else a promise settled by the
   * group's COMMIT: the transaction has not committed before it resolves.
   */
  readonly end: (commit: boolean) => Promise<void> | undefined;
}

/** A pool's connections, one taken for each transaction. */
export interface PooledConnections {
  readonly kind: "pooled";
  /** A connection of the pool, waiting for one when all are in use. */
  readonly take: () => Promise<PooledConnection>;
}

/** One pooled connection taken for a transaction. */
export interface PooledConnection {
  /** Queries on this connection (made once per connection of the pool). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly executor: Kysely<any>;
  /** Begins the transaction with `sql` (BEGIN ...); it may go out with the first statement. */
  readonly begin: (sql: string) => void;
  /** COMMITs; fails with the error of a write sent earlier without waiting (the COMMIT then rolled back). */
  readonly commit: () => Promise<void>;
  /** ROLLs BACK. */
  readonly rollback: () => Promise<void>;
  /** Hands the connection back to the pool; `broken`: it failed and is closed instead. */
  readonly give: (broken: boolean) => void;
}

/** A RealtimeBus that holds a resource (a LISTEN connection) until closed. */
export interface ClosableRealtimeBus extends RealtimeBus {
  readonly close: () => Promise<void>;
}
