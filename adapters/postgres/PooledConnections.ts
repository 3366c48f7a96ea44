/**
 * The connections Postgres transactions run on: a client taken from the pool for each
 * transaction, its BEGIN and COMMIT sent directly, and its queries through a Kysely made once
 * per client (over a pool of that one client, so Kysely's own Postgres connection runs them).
 * Kysely's `connection()` would lend the client through a callback and build a Kysely instance
 * for every transaction.
 */
import { Kysely, PostgresDialect, type CompiledQuery, type PostgresPool, type PostgresPoolClient, type QueryResult } from "kysely";
import type { PooledConnections } from "../sql/SqlDatabase.js";

/** A pool client that can be handed back closed (pg's `release(true)`). */
export type ReleasableClient = PostgresPoolClient & { release(destroy?: boolean): void };

/** What Kysely's Postgres connection answers for a query result. */
const toQueryResult = ({ command, rowCount, rows }: { command: string; rowCount: number | null; rows?: unknown[] }): QueryResult<any> => ({
  numAffectedRows: command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE" ? BigInt(rowCount ?? 0) : undefined,
  rows: rows ?? [],
});

/**
 * The transaction connections of `pool`, and `sendNow`: a compiled statement on a transaction's
 * executor sent to its client directly, answered as Kysely's Postgres connection answers.
 */
export const pooledConnections = (
  pool: { connect(): Promise<ReleasableClient> },
): PooledConnections & { readonly sendNow: (executor: Kysely<any>, query: CompiledQuery) => Promise<QueryResult<any>> | undefined } => {
  const executors = new WeakMap<ReleasableClient, Kysely<any>>();
  const clients = new WeakMap<Kysely<any>, ReleasableClient>();
  const executorOf = (client: ReleasableClient): Kysely<any> => {
    let executor = executors.get(client);
    if (executor === undefined) {
      // The same handle every time: Kysely keeps one connection object per client it is given.
      const handle: PostgresPoolClient = { query: client.query.bind(client) as PostgresPoolClient["query"], release: () => undefined };
      const onlyThisClient: PostgresPool = { connect: async () => handle, end: async () => undefined };
      executor = new Kysely<any>({ dialect: new PostgresDialect({ pool: onlyThisClient }) });
      executors.set(client, executor);
      clients.set(executor, client);
    }
    return executor;
  };
  return {
    kind: "pooled",
    take: async () => {
      const client = await pool.connect();
      return {
        executor: executorOf(client),
        run: async (sql) => {
          await client.query(sql, []);
        },
        give: (broken) => client.release(broken),
      };
    },
    sendNow: (executor, query) => {
      const client = clients.get(executor);
      if (client === undefined) return undefined;
      return (client.query(query.sql, [...query.parameters]) as Promise<{ command: string; rowCount: number | null; rows?: unknown[] }>).then(toQueryResult);
    },
  };
};
