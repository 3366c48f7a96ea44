/**
 * Named prepared statements on Postgres. Kysely sends every query as `client.query(text, values)`,
 * which pg runs as an unnamed statement: parsed and planned by the server on every execution.
 * This pool wrapper names each distinct parameterized text once (process-wide), so pg parses it
 * once per connection and later executions only bind and execute it. Names are bounded: past
 * `maxNamed` distinct texts, further ones run unnamed as before (a query built with literal
 * values inlined must not grow the server's per-connection statement cache without end).
 */
import pg from "pg";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type { Corkable, ReleasableClient } from "./PooledConnections.js";

/** Text -> statement name, shared by every pool in the process (names are per text, not per pool). */
const names = new Map<string, string>();

const nameFor = (text: string, maxNamed: number): string | undefined => {
  let name = names.get(text);
  if (name === undefined && names.size < maxNamed) {
    name = `dk_${names.size.toString(36)}`;
    names.set(text, name);
  }
  return name;
};

/**
 * Runs `text` as the prepared statement `name`. The Query is made from the text and the name set
 * on it afterwards: given a config object (`{ name, text, values }`), pg copies it property
 * descriptor by descriptor on every query (`cloneQueryConfig`), ~2% of a task PATCH's CPU.
 */
const namedQuery = (client: pg.PoolClient, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> =>
  new Promise((resolve, reject) => {
    // pg's types leave out the fields its Query reads; these are the ones its constructor sets.
    const query = new pg.Query(text, values) as pg.Query & {
      name?: string;
      callback?: (error: Error | null, result: pg.QueryResult) => void;
    };
    query.name = name;
    query.callback = (error, result) => (error ? reject(error) : resolve(result));
    client.query(query);
  });

/** A pool whose clients run parameterized queries as named prepared statements. */
export const namedStatementPool = (
  pool: pg.Pool,
  options: { readonly maxNamed?: number } = {},
): PostgresPool & { connect(): Promise<ReleasableClient> } => {
  const maxNamed = options.maxNamed ?? 2_000;
  // One wrapper per client, so Kysely keeps one connection object per client as it does for pg's.
  const wrappers = new WeakMap<pg.PoolClient, ReleasableClient>();
  const wrap = (client: pg.PoolClient): ReleasableClient => {
    let wrapper = wrappers.get(client);
    if (wrapper === undefined) {
      wrapper = {
        query: ((textOrCursor: unknown, values?: ReadonlyArray<unknown>) => {
          if (typeof textOrCursor === "string" && values !== undefined && values.length > 0) {
            const name = nameFor(textOrCursor, maxNamed);
            if (name !== undefined) return namedQuery(client, name, textOrCursor, values as unknown[]);
          }
          return (client.query as (...args: unknown[]) => unknown)(textOrCursor, values);
        }) as PostgresPoolClient["query"],
        release: (destroy?: boolean) => client.release(destroy),
        // The connection's socket, so a transaction can send several pipelined statements as one write.
        socket: (client as unknown as { connection?: { stream?: Corkable } }).connection?.stream,
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
};
