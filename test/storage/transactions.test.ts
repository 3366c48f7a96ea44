/** Runs the transactions contract kit against the SQLite and Postgres adapters, and the drivers' failed COMMIT. */
import t from "tap";
import { Cause, Effect, Exit, Option } from "effect";
import { sql } from "kysely";
import { runQuery } from "../../adapters/sql/runQuery.js";
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
