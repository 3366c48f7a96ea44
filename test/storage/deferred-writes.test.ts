/**
 * Held writes (adapters/sql/Transactions.ts `deferWrite`): a write nobody reads back (an event
 * row, an outbox row) is held in a Postgres transaction and sent with the others before the next
 * statement or the COMMIT, in one statement. Whatever the dialect, the transaction behaves as if
 * it had run at once: later statements see it, it commits with the transaction, its failure fails
 * the transaction with nothing stored, and a savepoint that rolls back drops the ones made in it.
 */
import { Cause, Effect, Exit } from "effect";
import { sql } from "kysely";
import pg from "pg";
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { deferWrite, makeTransactions } from "../../adapters/sql/Transactions.js";
import { runQuery } from "../../adapters/sql/runQuery.js";
import { forEachDialect } from "../support/databases.js";

const table = "dk_held_writes";

const setUp = async (db: SqlDatabase) => {
  await sql`CREATE TABLE ${sql.table(table)} (id TEXT PRIMARY KEY, note TEXT NOT NULL)`.execute(db.db);
  const hold = (id: string, note = "held") => deferWrite(db, (ex) => ex.insertInto(table).values({ id, note }));
  const stored = async () =>
    (await sql<{ id: string }>`SELECT id FROM ${sql.table(table)} ORDER BY id`.execute(db.db)).rows.map((row) => row.id);
  const readInside = runQuery(db, (ex) => ex.selectFrom(table).select("id").orderBy("id").execute()).pipe(
    Effect.map((rows) => rows.map((row) => String(row.id))),
  );
  return { tx: makeTransactions(db), hold, stored, readInside };
};

/** The texts of the statements pg sends while `run` runs (Postgres). */
const statementsSentDuring = async <A>(run: () => Promise<A>): Promise<{ readonly result: A; readonly texts: ReadonlyArray<string> }> => {
  const texts: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [query] = args;
    texts.push(typeof query === "string" ? query : String((query as { text?: unknown }).text ?? ""));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    return { result: await run(), texts };
  } finally {
    pg.Client.prototype.query = original;
  }
};

t.test("held writes", async (t) => {
  await forEachDialect(
    t,
    "a held write is seen by the transaction's later statements and commits with it",
    async (t, db) => {
      const { tx, hold, stored, readInside } = await setUp(db);
      const inside = await Effect.runPromise(tx.run(Effect.zipRight(Effect.zipRight(hold("a"), hold("b")), readInside)));
      t.same(inside, ["a", "b"], "a read after the writes sees both");
      t.same(await stored(), ["a", "b"], "both committed");
    },
    [],
  );

  await forEachDialect(
    t,
    "outside a transaction a held write runs at once",
    async (t, db) => {
      const { hold, stored } = await setUp(db);
      await Effect.runPromise(hold("now"));
      t.same(await stored(), ["now"]);
    },
    [],
  );

  await forEachDialect(
    t,
    "a held write that fails fails the transaction as a defect, and nothing of the transaction is stored",
    async (t, db) => {
      const { tx, hold, stored } = await setUp(db);
      await Effect.runPromise(hold("taken"));
      const plain = runQuery(db, (ex) => ex.insertInto(table).values({ id: "plain", note: "not held" }).execute());
      const exit = await Effect.runPromiseExit(tx.run(Effect.zipRight(plain, Effect.zipRight(hold("fresh"), hold("taken")))));
      t.ok(Exit.isFailure(exit) && Cause.isDie(exit.cause), "the run dies");
      t.same(await stored(), ["taken"], "neither the plain write nor the held ones of that transaction are stored");
    },
    [],
  );

  await forEachDialect(
    t,
    "a savepoint that rolls back drops the writes held inside it; those held before it, and a released one's, commit",
    async (t, db) => {
      const { tx, hold, stored } = await setUp(db);
      const savepoint = tx.savepoint;
      if (savepoint === undefined) return void t.fail("the SQL Transactions offer savepoints");
      const failing = savepoint(Effect.zipRight(hold("inside-failed"), Effect.fail("no" as const)));
      const released = savepoint(hold("inside-released"));
      await Effect.runPromise(tx.run(Effect.zipRight(hold("before"), Effect.zipRight(Effect.ignore(failing), Effect.zipRight(released, hold("after"))))));
      t.same(await stored(), ["after", "before", "inside-released"]);
    },
    [],
  );

  await forEachDialect(
    t,
    "on Postgres the writes held at COMMIT go as one statement; on SQLite each runs at once",
    async (t, db) => {
      const { tx, hold, stored } = await setUp(db);
      const { texts } = await statementsSentDuring(() => Effect.runPromise(tx.run(Effect.zipRight(hold("x"), hold("y")))));
      const inserts = texts.filter((text) => text.includes(table));
      if (db.dialect === "postgres") {
        t.equal(inserts.length, 1, "one statement carries both writes");
        t.match(inserts[0] ?? "", /^with /i, "as WITH clauses");
        t.same(texts.map((text) => text.split(" ")[0]?.toLowerCase()), ["begin", "with", "commit"], "BEGIN, the writes, COMMIT");
      } else {
        t.equal(inserts.length, 0, "SQLite runs no statement through pg");
      }
      t.same(await stored(), ["x", "y"]);
    },
    [],
  );
});
