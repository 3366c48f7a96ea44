/** Runs the transactions contract kit against the SQLite and Postgres adapters, and the drivers' failed COMMIT. */
import t from "tap";
import { Cause, Effect, Exit, Option } from "effect";
import { sql } from "kysely";
import { compiledOnce, runQuery, runStatement, sendStatement } from "../../adapters/sql/runQuery.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { transactionsSuite } from "../contract/index.js";
import { dialects, forEachDialect } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`transactions contract [${dialect}]`, (t) =>
    transactionsSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}

t.test("a transaction whose COMMIT fails is a defect, leaves nothing, and its connection serves the next transactions", (t) =>
  forEachDialect(
    t,
    "failed commit",
    async (t, db) => {
      // A constraint checked only at COMMIT: a deferred unique key (Postgres), a deferred foreign key (SQLite).
      if (db.dialect === "postgres") {
        await sql`create table d (id integer, constraint d_once unique (id) deferrable initially deferred)`.execute(db.db);
      } else {
        await sql`create table p (id integer primary key)`.execute(db.db);
        await sql`create table d (id integer references p (id) deferrable initially deferred)`.execute(db.db);
      }
      const tx = makeTransactions(db);
      const insert = (id: number) => runQuery(db, (ex) => ex.insertInto("d").values({ id }).execute());
      const bad = db.dialect === "postgres" ? Effect.zipRight(insert(1), insert(1)) : insert(1);
      const exit = await Effect.runPromiseExit(tx.run(bad));
      const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined;
      t.match(defect, { message: /unique|UNIQUE|FOREIGN KEY|duplicate/ }, "the COMMIT's error is the defect");
      if (db.dialect === "sqlite") for (let id = 10; id < 40; id++) await sql`insert into p (id) values (${id})`.execute(db.db);
      // More transactions than the pool has connections, some at once: each commits.
      await Effect.runPromise(Effect.forEach(Array.from({ length: 30 }, (_, i) => i + 10), (id) => tx.run(insert(id)), { concurrency: 5 }));
      const rows = await db.db.selectFrom("d").select("id").orderBy("id").execute();
      t.same(rows.map((r) => Number(r.id)), Array.from({ length: 30 }, (_, i) => i + 10), "nothing of the failed transaction, all of the later ones");
    },
    [],
  ),
);

/**
 * Writes whose answer nobody reads (`sendStatement`: event and outbox rows) are sent without
 * waiting in a Postgres transaction; they must still be all-or-nothing with it.
 */
t.test("writes sent without waiting for their answer (sendStatement) are part of their transaction", (t) =>
  forEachDialect(
    t,
    "unanswered writes",
    async (t, db) => {
      await sql`create table w (id integer primary key, note text not null)`.execute(db.db);
      const tx = makeTransactions(db);
      const send = compiledOnce<{ id: number; note: string }>((ex, p) => ex.insertInto("w").values({ id: p("id"), note: p("note") }));
      const write = (id: number, note = "n") => sendStatement(db, send, { id, note });
      const count = compiledOnce<Record<string, never>>((ex) => ex.selectFrom("w").select((eb) => eb.fn.countAll<number>().as("n")));
      const read = Effect.map(runStatement(db, count, {}), (r) => Number(r.rows[0].n));
      const ids = async () => (await db.db.selectFrom("w").select("id").orderBy("id").execute()).map((r) => Number(r.id));
      const defectOf = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined);

      t.equal(await Effect.runPromise(tx.run(Effect.zipRight(Effect.all([write(1), write(2)]), read))), 2, "a later read in the transaction sees them");
      t.same(await ids(), [1, 2], "they commit with it");

      const failing = await Effect.runPromiseExit(tx.run(Effect.zipRight(write(3), Effect.fail("refused" as const))));
      t.ok(Exit.isFailure(failing) && Option.isSome(Cause.failureOption(failing.cause)), "the transaction failed");
      t.same(await ids(), [1, 2], "they roll back with it");

      // A duplicate key in the middle: the write's own error is the defect, whatever ran after it.
      const duplicateThenWrite = await Effect.runPromiseExit(tx.run(Effect.all([write(4), write(1), write(5)])));
      t.match(defectOf(duplicateThenWrite), { message: /duplicate|UNIQUE/ }, "its failure is the transaction's defect, at COMMIT");
      const duplicateThenRead = await Effect.runPromiseExit(tx.run(Effect.zipRight(Effect.all([write(6), write(2)]), read)));
      t.match(defectOf(duplicateThenRead), { message: /duplicate|UNIQUE/ }, "a statement after it reports that write's error, not a refused transaction");
      const nullNote = await Effect.runPromiseExit(tx.run(Effect.all([write(7), sendStatement(db, send, { id: 8, note: null as unknown as string })])));
      t.match(defectOf(nullNote), { message: /null|NULL/ }, "any failure of such a write fails the transaction");
      t.same(await ids(), [1, 2], "nothing of the failed transactions");

      // Every connection of the pool still serves transactions, some at once.
      await Effect.runPromise(Effect.forEach(Array.from({ length: 30 }, (_, i) => i + 10), (id) => tx.run(Effect.all([write(id), write(id + 100)])), { concurrency: 5 }));
      t.equal((await ids()).length, 62, "the later transactions all commit");
      // Outside a transaction it runs and answers as any statement.
      await Effect.runPromise(write(500));
      t.ok((await ids()).includes(500), "outside a transaction it runs at once");
    },
    [],
  ),
);
