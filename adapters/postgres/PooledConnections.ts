/**
 * The connections Postgres transactions run on: a client taken from the pool for each
 * transaction, its BEGIN and COMMIT sent directly, and its queries through a Kysely made once
 * per client (over a pool of that one client, so Kysely's own Postgres connection runs them).
 * Kysely's `connection()` would lend the client through a callback and build a Kysely instance
 * for every transaction.
 *
 * The pool's clients run in pg's pipeline mode, so a write whose answer nobody reads (an event or
 * outbox row: `sendLater`) is sent at once and not waited for: the transaction's next statement
 * or its COMMIT goes out behind it on the same connection and waits for both answers. Postgres
 * runs them in order; a failed write aborts the transaction block, so everything after it is
 * refused and the COMMIT rolls back. That write's error is then the one reported (a defect).
 */
import { Kysely, PostgresDialect, type CompiledQuery, type PostgresPool, type PostgresPoolClient, type QueryResult } from "kysely";
import type { PooledConnections } from "../sql/SqlDatabase.js";

/** A socket whose writes can be held back and sent as one (a net.Socket's cork/uncork). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** A pool client that can be handed back closed (pg's `release(true)`); `socket`: the connection's socket, when known. */
export type ReleasableClient = PostgresPoolClient & { release(destroy?: boolean): void; readonly socket?: Corkable | undefined };

/** The socket under a wrapped client, or a pg client's own. */
const socketOf = (client: ReleasableClient): Corkable | undefined =>
  client.socket ?? (client as { connection?: { stream?: Corkable } }).connection?.stream;

type PgResult = { command: string; rowCount: number | null; rows?: unknown[] };

/** What Kysely's Postgres connection answers for a query result. */
const toQueryResult = ({ command, rowCount, rows }: PgResult): QueryResult<any> => ({
  numAffectedRows: command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE" ? BigInt(rowCount ?? 0) : undefined,
  rows: rows ?? [],
});

/** The writes of a transaction sent without waiting for their answers, and the first that failed. */
class SentWrites {
  private unanswered: Promise<void>[] = [];
  /** Set once a write failed: the transaction is aborted and rolls back at COMMIT. */
  failure: { readonly error: unknown } | undefined;

  add(answer: Promise<unknown>): void {
    this.unanswered.push(
      answer.then(
        () => undefined,
        (error: unknown) => void (this.failure ??= { error }),
      ),
    );
  }

  /** Waits for every write sent so far (each settles before anything sent after it). */
  answered(): Promise<void> | undefined {
    if (this.unanswered.length === 0) return undefined;
    const all = Promise.all(this.unanswered.splice(0));
    return all.then(() => undefined);
  }

  /** `sent`'s answer, after the writes sent before it; an earlier write's failure wins over it. */
  after<A>(sent: Promise<A>): Promise<A> {
    const before = this.answered();
    if (before === undefined && this.failure === undefined) return sent;
    return Promise.allSettled([sent, before]).then(([answer]) => {
      if (this.failure !== undefined) throw this.failure.error;
      if (answer.status === "rejected") throw answer.reason;
      return answer.value;
    });
  }
}

/**
 * A transaction on a client: its BEGIN until the first statement takes it along, its unanswered
 * writes, and whether its socket holds written statements back (`held`): pg writes each query
 * with its own system call, so statements sent without waiting stay in the socket's buffer until
 * the next statement that is waited for, and leave with it as one write.
 */
interface OpenTransaction {
  unsentBegin: string | undefined;
  readonly writes: SentWrites;
  readonly socket: Corkable | undefined;
  held: boolean;
}

/** Holds `open`'s socket writes back; at the latest they leave once this turn of the event loop ends. */
const hold = (open: OpenTransaction): void => {
  if (open.held || open.socket === undefined) return;
  open.socket.cork();
  open.held = true;
  setImmediate(() => letGo(open));
};

/** Sends whatever `open`'s socket held back, as one write. */
const letGo = (open: OpenTransaction): void => {
  if (!open.held) return;
  open.held = false;
  open.socket?.uncork();
};

/** A statement that only reads: it may go out together with its transaction's BEGIN. */
const reading = /^\s*select\b/i;

/**
 * The transaction connections of `pool`; `sendNow`: a compiled statement on a transaction's
 * executor sent to its client directly, answered as Kysely's Postgres connection answers;
 * `sendLater`: a write sent without waiting for its answer (see above).
 */
export const pooledConnections = (
  pool: { connect(): Promise<ReleasableClient> },
): PooledConnections & {
  readonly sendNow: (executor: Kysely<any>, query: CompiledQuery) => Promise<QueryResult<any>> | undefined;
  readonly sendLater: (executor: Kysely<any>, query: CompiledQuery) => boolean;
} => {
  const executors = new WeakMap<ReleasableClient, Kysely<any>>();
  const clients = new WeakMap<Kysely<any>, ReleasableClient>();
  // The open transaction of each client taken; replaced when the client is taken again.
  const transactions = new WeakMap<ReleasableClient, OpenTransaction>();
  // The BEGIN statements this pool has seen answered. Once a BEGIN's text has worked, it can fail
  // only with its connection: a broken one, or one inside an aborted transaction block, where the
  // statements sent after it fail too. So a first write may go out with it without waiting: it
  // cannot run on its own. Until then (a BEGIN with options never used, or a mistyped one) the
  // first write waits for BEGIN's answer.
  const provenBegins = new Set<string>();
  const send = (client: ReleasableClient, sql: string, parameters: ReadonlyArray<unknown>): Promise<PgResult> =>
    client.query(sql, parameters as unknown[]) as unknown as Promise<PgResult>;
  /** A statement of the transaction on `client`: behind its BEGIN when that is still unsent, and behind its unanswered writes. */
  const issue = (client: ReleasableClient, sql: string, parameters: ReadonlyArray<unknown>): Promise<PgResult> => {
    const open = transactions.get(client);
    if (open === undefined) return send(client, sql, parameters);
    const begin = open.unsentBegin;
    if (begin === undefined) {
      const sent = send(client, sql, parameters);
      letGo(open);
      return open.writes.after(sent);
    }
    open.unsentBegin = undefined;
    if (reading.test(sql) || provenBegins.has(begin)) {
      // Sent together. A read: were BEGIN refused, the read ran on its own, changed nothing, and its
      // answer is dropped. A write: only behind a BEGIN this pool has seen answered (see provenBegins).
      hold(open);
      sendBegin(client, open, begin);
      const sent = send(client, sql, parameters);
      letGo(open);
      return open.writes.after(sent);
    }
    // A write waits for the answer of a BEGIN not yet proven: were it refused, the write would otherwise commit on its own.
    return send(client, begin, []).then(() => {
      provenBegins.add(begin);
      return open.writes.after(send(client, sql, parameters));
    });
  };
  /** Sends `open`'s BEGIN without waiting; its failure fails the statements after it. */
  const sendBegin = (client: ReleasableClient, open: OpenTransaction, begin: string): void => {
    const answer = send(client, begin, []);
    open.writes.add(answer);
    void answer.then(() => provenBegins.add(begin), () => undefined);
  };
  const executorOf = (client: ReleasableClient): Kysely<any> => {
    let executor = executors.get(client);
    if (executor === undefined) {
      // The same handle every time: Kysely keeps one connection object per client it is given.
      const query = ((sql: string, parameters: ReadonlyArray<unknown>) => issue(client, sql, parameters)) as PostgresPoolClient["query"];
      const handle: PostgresPoolClient = { query, release: () => undefined };
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
      const open: OpenTransaction = { unsentBegin: undefined, writes: new SentWrites(), socket: socketOf(client), held: false };
      transactions.set(client, open);
      // Nothing was sent when BEGIN is still unsent: there is nothing to commit or roll back.
      const end = async (sql: "COMMIT" | "ROLLBACK"): Promise<void> => {
        if (open.unsentBegin !== undefined) {
          open.unsentBegin = undefined;
          return;
        }
        const answer = send(client, sql, []);
        letGo(open);
        // A ROLLBACK does not care whether the unanswered writes failed; a COMMIT fails with them.
        if (sql === "COMMIT") await open.writes.after(answer);
        else await Promise.all([open.writes.answered(), answer]);
      };
      return {
        executor: executorOf(client),
        begin: (sql) => void (open.unsentBegin = sql),
        commit: () => end("COMMIT"),
        rollback: () => end("ROLLBACK"),
        give: (broken) => {
          letGo(open);
          transactions.delete(client);
          client.release(broken);
        },
      };
    },
    sendNow: (executor, query) => {
      const client = clients.get(executor);
      return client === undefined ? undefined : issue(client, query.sql, query.parameters).then(toQueryResult);
    },
    sendLater: (executor, query) => {
      const client = clients.get(executor);
      const open = client === undefined ? undefined : transactions.get(client);
      // Outside a transaction a write waits (issue); so does one behind a BEGIN not yet proven.
      if (client === undefined || open === undefined) return false;
      const begin = open.unsentBegin;
      if (begin !== undefined && !provenBegins.has(begin)) return false;
      hold(open);
      if (begin !== undefined) {
        open.unsentBegin = undefined;
        sendBegin(client, open, begin);
      }
      open.writes.add(send(client, query.sql, query.parameters));
      return true;
    },
  };
};
