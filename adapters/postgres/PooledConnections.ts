/**
 * The connections Postgres transactions run on: a client taken from the pool for each
 * transaction, its BEGIN and COMMIT sent directly, and its queries through a Kysely made once
 * per client (over a pool of that one client, so Kysely's own Postgres connection runs them).
 * Kysely's `connection()` would lend the client through a callback and build a Kysely instance
 * for every transaction.
 */
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type { PooledConnections } from "../sql/SqlDatabase.js";

/** A pool client that can be handed back closed (pg's `release(true)`). */
export type ReleasableClient = PostgresPoolClient & { release(destroy?: boolean): void };

/** The transaction connections of `pool`. */
export const pooledConnections = (pool: { connect(): Promise<ReleasableClient> }): PooledConnections => {
  const executors = new WeakMap<ReleasableClient, Kysely<any>>();
  const executorOf = (client: ReleasableClient): Kysely<any> => {
    let executor = executors.get(client);
    if (executor === undefined) {
      // The same handle every time: Kysely keeps one connection object per client it is given.
      const handle: PostgresPoolClient = { query: client.query.bind(client) as PostgresPoolClient["query"], release: () => undefined };
      const onlyThisClient: PostgresPool = { connect: async () => handle, end: async () => undefined };
      executor = new Kysely<any>({ dialect: new PostgresDialect({ pool: onlyThisClient }) });
      executors.set(client, executor);
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
  };
};
