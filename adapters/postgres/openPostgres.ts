/** The Postgres driver: a pg Pool under Kysely. */
import pg from "pg";
import { Effect } from "effect";
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import { namedStatementPool } from "./NamedStatements.js";
import { pooledConnections, type ReleasableClient } from "./PooledConnections.js";
import { postgresTypes } from "./TimestampParser.js";
import { inProcessWorkSignals } from "../sql/InProcessWorkSignals.js";
import { afterCommit } from "../sql/Transactions.js";
import { coalescedNotices } from "./CoalescedNotices.js";
import { postgresFeatures } from "./postgresFeatures.js";
import { postgresNotify } from "./PostgresNotify.js";
import { postgresRealtimeBus } from "./PostgresRealtimeBus.js";
import { postgresWorkSignals, WORK_CHANNEL } from "./PostgresWorkSignals.js";

/** Options for {@link openPostgres}. */
export interface PostgresOptions {
  readonly connectionString: string;
  /** Pool size; 10 by default. */
  readonly max?: number;
  /** Run parameterized queries as named prepared statements (default true). */
  readonly namedStatements?: boolean;
}

// Remembered per database so the realtime bus can open its own dedicated LISTEN connection.
const connectionStrings = new WeakMap<SqlDatabase, string>();

/** The connection string `db` was opened with, if it came from {@link openPostgres}. */
export const postgresConnectionString = (db: SqlDatabase): string | undefined => connectionStrings.get(db);

// The pool of each database, read by the pool-usage metric (adapters/observability).
const pools = new WeakMap<SqlDatabase, pg.Pool>();

/** The pg Pool under `db`, if it came from {@link openPostgres}. */
export const postgresPool = (db: SqlDatabase): pg.Pool | undefined => pools.get(db);

/** Opens a pooled Postgres connection; the pool is ended by `close`. */
export const openPostgres = async ({ connectionString, max, namedStatements }: PostgresOptions): Promise<SqlDatabase> => {
  // Pipeline mode: a transaction's writes whose answers nobody reads go out without waiting (PooledConnections.ts).
  // timestamptz text is read by TimestampParser.ts (the same Dates as pg's parser, cheaper).
  const pool = new pg.Pool({ connectionString, max: max ?? 10, pipeline: true, types: postgresTypes });
  // An idle client losing its server (e.g. a restart) must not crash the process.
  pool.on("error", () => undefined);
  // So must a checked-out one (pg-pool drops its idle listener on checkout): a connection reset
  // mid-query fails that query with the error, and the client's 'error' event, unheard, would
  // crash the process (a network cut between the server and Postgres did).
  pool.on("connect", (client) => void client.on("error", () => undefined));
  const clients = namedStatements === false ? (pool as unknown as { connect(): Promise<ReleasableClient> } & PostgresPool) : namedStatementPool(pool);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: clients }) });
  const connections = pooledConnections(clients);
  let closed = false;
  const database: SqlDatabase = {
    dialect: "postgres",
    db,
    transactionConnections: connections,
    sendNow: connections.sendNow,
    sendLater: connections.sendLater,
    features: postgresFeatures,
    // After a commit: this process's loops at once; other processes by a folded pg_notify when
    // this process has no loop of that kind (PostgresWorkSignals.ts).
    workSignals: () => {
      const deferToCommit = (key: string, hook: () => void) => afterCommit(database, key, hook);
      return postgresWorkSignals({
        key: database,
        connectionString,
        local: inProcessWorkSignals(database, deferToCommit),
        deferToCommit,
        requestNotice,
      });
    },
    realtimeBus: async () => postgresRealtimeBus(connectionString, notify),
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
  // Notices go out on the database's own executors (the open transaction's, when there is one).
  const notify = postgresNotify(database);
  // Sent from after-commit hooks, outside any fiber: on the pool, never in a transaction.
  const requestNotice = coalescedNotices((kind) => Effect.runPromise(notify(WORK_CHANNEL, kind)));
  connectionStrings.set(database, connectionString);
  pools.set(database, pool);
  return database;
};
