/**
 * Raw baselines that run every statement a request runs through the stack, on the bare driver:
 * the statement type, a runner that runs them as the stack does (autocommit, or one
 * transaction), and the kernel's statements every module's requests share (authentication's
 * epoch read, the idempotency reservation and answer, the outbox row, a job), as the adapters
 * compile them (captured from the server under the bench's load).
 */
import type { RawDatabase } from "./RawDatabase.js";
import { retryWhileLocked } from "./RawLoop.js";

/** `sql` with `?` placeholders as the dialect writes them (`$1`, `$2`, ... on Postgres). */
export const numbered = (dialect: "sqlite" | "postgres", sql: string): string => {
  let n = 0;
  return dialect === "sqlite" ? sql : sql.replace(/\?/g, () => `$${++n}`);
};

/** The kernel's statements, as the adapters compile them for `dialect`. */
export const kernelSql = (dialect: "sqlite" | "postgres") => ({
  // What authentication reads on every request (UserEpochs.standing).
  epoch: numbered(dialect, `select "epoch", "revoked_at" from "user_epochs" where "user_id" = ?`),
  reserveKey: numbered(
    dialect,
    `insert into "idempotency_keys" ("scope", "key", "request_hash", "state", "response", "locked_until", "expires_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?) on conflict ("scope", "key") do update set "request_hash" = "excluded"."request_hash", "state" = ?, "response" = ?, "locked_until" = "excluded"."locked_until", "expires_at" = "excluded"."expires_at", "created_at" = "excluded"."created_at" where (("idempotency_keys"."state" = ? and "idempotency_keys"."locked_until" <= ?) or "idempotency_keys"."expires_at" <= ?) returning "scope"`,
  ),
  completeKey: numbered(dialect, `update "idempotency_keys" set "state" = ?, "response" = ? where "scope" = ? and "key" = ? and "state" = ?`),
  outbox: numbered(dialect, `insert into "outbox" ("id", "tenant_id", "type", "event", "status", "attempts", "next_attempt_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?)`),
  job: numbered(
    dialect,
    `insert into "jobs" ("id", "kind", "key", "payload", "status", "attempts", "max_attempts", "run_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning *`,
  ),
});

/** The parameters of an idempotency reservation of `key` in `scope` at `at` (toDb: the dialect's time value). */
export const reserveKeyParams = (scope: string, key: string, at: Date, toDb: (at: Date) => unknown): unknown[] => {
  const time = toDb(at);
  return [scope, key, "a".repeat(64), "in_progress", null, toDb(new Date(at.getTime() + 60_000)), toDb(new Date(at.getTime() + 86_400_000)), time, "in_progress", null, "in_progress", time, time];
};

/** One statement of a raw operation: its SQL and parameters. */
export type RawStatement = readonly [sql: string, params: ReadonlyArray<unknown>];

/**
 * Runs raw statements on the bare driver as the stack runs them: one by one outside a
 * transaction (autocommit), or together in one (BEGIN IMMEDIATE on SQLite). A statement that
 * answers rows is read, as the stack reads it. SQLite's steps are synchronous (no promise), so
 * the raw loop stays tight; Postgres's steps are promises.
 */
export interface RawRunner {
  readonly autocommit: (statements: ReadonlyArray<RawStatement>) => void | Promise<void>;
  readonly inTransaction: (statements: ReadonlyArray<RawStatement>) => void | Promise<void>;
}

/** The runner of raw statements on `db` (SQLite statements prepared once per text). */
export const rawRunner = (db: RawDatabase): RawRunner => {
  if (db.dialect === "sqlite") {
    const sqlite = db.sqlite;
    const prepared = new Map<string, ReturnType<typeof sqlite.prepare<unknown[]>>>();
    const run = ([sql, params]: RawStatement): void => {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare<unknown[]>(sql);
        prepared.set(sql, statement);
      }
      if (statement.reader) statement.all(...params);
      else statement.run(...params);
    };
    // Retried when the file is locked by the server (RawLoop.ts), setup statements too: each
    // autocommit statement alone, a transaction whole (its BEGIN IMMEDIATE is what meets the lock).
    const autocommit = (statements: ReadonlyArray<RawStatement>): void | Promise<void> => {
      for (let i = 0; i < statements.length; i++) {
        const ran = retryWhileLocked(() => run(statements[i]!));
        if (ran instanceof Promise) return ran.then(() => autocommit(statements.slice(i + 1)));
      }
    };
    return {
      autocommit,
      inTransaction: (statements) =>
        retryWhileLocked(() => {
          run(["BEGIN IMMEDIATE", []]);
          try {
            statements.forEach(run);
            run(["COMMIT", []]);
          } catch (error) {
            // Never leave the file locked for the scenarios after this one.
            if (sqlite.inTransaction) run(["ROLLBACK", []]);
            throw error;
          }
        }),
    };
  }
  const pool = db.pool;
  return {
    autocommit: async (statements) => {
      for (const [sql, params] of statements) await pool.query(sql, [...params]);
    },
    inTransaction: (statements) =>
      inPgTransaction(pool, async (query) => {
        for (const [sql, params] of statements) await query(sql, [...params]);
      }),
  };
};

/** Runs `work` in one transaction on a pinned pg connection, as Transactions.run does (ROLLBACK on failure). */
export const inPgTransaction = async (
  pool: Extract<RawDatabase, { dialect: "postgres" }>["pool"],
  work: (query: (text: string, values: unknown[]) => Promise<{ rows: any[]; rowCount: number | null }>) => Promise<void>,
): Promise<void> => {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      await work((text, values) => client.query(text, values));
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  } finally {
    client.release();
  }
};

/** Runs `steps` in order, synchronously until one answers a promise (then the rest after it). */
export const inOrder = (steps: ReadonlyArray<() => void | Promise<void>>): void | Promise<void> => {
  for (let i = 0; i < steps.length; i++) {
    const result = steps[i]!();
    if (result instanceof Promise) return steps.slice(i + 1).reduce<Promise<void>>((previous, step) => previous.then(step), result);
  }
};

