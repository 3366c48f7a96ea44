/**
 * The drivers' statement handling: SQLite keeps prepared statements per connection in a bounded
 * LRU cache and answers SELECTs outside a transaction from a separate WAL read connection;
 * Postgres runs parameterized queries as named prepared statements.
 */
import { Cause, Deferred, Effect, Exit, Option } from "effect";
import type BetterSqlite3 from "better-sqlite3";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { compiledOnce, runQuery, runStatement } from "../../adapters/sql/runQuery.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { StatementCache } from "../../adapters/sqlite/SqliteConnections.js";
import { createTestPostgresDatabase, createTestSqliteFile, forEachDialect } from "../support/databases.js";

/** A stand-in better-sqlite3 database that counts prepares. */
const countingDatabase = () => {
  const prepared: string[] = [];
  const database = {
    prepare: (sql: string) => {
      prepared.push(sql);
      return { sql, busy: false } as unknown as BetterSqlite3.Statement;
    },
  } as unknown as BetterSqlite3.Database;
  return { database, prepared };
};

t.test("a SQLite statement is prepared once per SQL text and reused while cached", async (t) => {
  const { database, prepared } = countingDatabase();
  const cache = new StatementCache(database, 10);
  const first = cache.prepare("select 1");
  t.equal(cache.prepare("select 1"), first, "the same statement object comes back");
  cache.prepare("select 2");
  t.same(prepared, ["select 1", "select 2"]);
});

t.test("the SQLite statement cache is bounded and evicts the least recently used statement", async (t) => {
  const { database, prepared } = countingDatabase();
  const cache = new StatementCache(database, 2);
  cache.prepare("a");
  cache.prepare("b");
  cache.prepare("a"); // a is now the most recently used
  cache.prepare("c"); // evicts b
  t.equal(cache.size, 2);
  cache.prepare("a");
  cache.prepare("b");
  t.same(prepared, ["a", "b", "c", "b"], "a stayed cached, b was evicted and prepared again");
});

t.test("a busy (still iterating) cached SQLite statement is not handed out again", async (t) => {
  const { database, prepared } = countingDatabase();
  const cache = new StatementCache(database, 2);
  const first = cache.prepare("a") as unknown as { busy: boolean };
  first.busy = true;
  t.not(cache.prepare("a"), first, "a fresh statement while the cached one iterates");
  t.same(prepared, ["a", "a"]);
});

t.test("on SQLite a SELECT outside a transaction does not wait for an open write transaction", async (t) => {
  const db = await openSqlite({ filename: createTestSqliteFile(t) });
  t.teardown(db.close);
  await db.db.schema.createTable("things").addColumn("id", "integer", (c) => c.primaryKey()).execute();
  await db.db.insertInto("things").values({ id: 1 }).execute();
  const tx = makeTransactions(db);
  const count = runQuery(db, (ex) => ex.selectFrom("things").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).pipe(
    Effect.map((row) => Number(row.n)),
  );
  const program = Effect.gen(function* () {
    const inserted = yield* Deferred.make<void>();
    const release = yield* Deferred.make<void>();
    const writer = yield* Effect.fork(
      tx.run(
        Effect.gen(function* () {
          yield* runQuery(db, (ex) => ex.insertInto("things").values({ id: 2 }).execute());
          yield* Deferred.succeed(inserted, undefined);
          yield* Deferred.await(release);
        }),
      ),
    );
    yield* Deferred.await(inserted);
    // The write transaction holds the write connection; the read must still answer at once.
    const during = yield* count.pipe(Effect.timeout("2 seconds"));
    yield* Deferred.succeed(release, undefined);
    yield* writer.await;
    const after = yield* count;
    return { during, after };
  });
  const { during, after } = await Effect.runPromise(program);
  t.equal(during, 1, "the read sees only committed rows");
  t.equal(after, 2, "once committed, the next read sees the write");
});

t.test("on SQLite writes outside a transaction still go to the write connection", async (t) => {
  const db = await openSqlite({ filename: createTestSqliteFile(t) });
  t.teardown(db.close);
  await db.db.schema.createTable("things").addColumn("id", "integer", (c) => c.primaryKey()).execute();
  await Effect.runPromise(runQuery(db, (ex) => ex.insertInto("things").values({ id: 7 }).returning("id").execute()));
  const rows = await Effect.runPromise(runQuery(db, (ex) => ex.selectFrom("things").selectAll().execute()));
  t.same(rows, [{ id: 7 }]);
});

t.test("an in-memory SQLite database has no separate read connection (it would be another database)", async (t) => {
  const db = await openSqlite({ filename: ":memory:" });
  t.teardown(db.close);
  await db.db.schema.createTable("things").addColumn("id", "integer").execute();
  await db.db.insertInto("things").values({ id: 1 }).execute();
  const rows = await Effect.runPromise(runQuery(db, (ex) => ex.selectFrom("things").selectAll().execute()));
  t.same(rows, [{ id: 1 }]);
});

t.test("on Postgres a parameterized query runs as a named prepared statement, prepared once per connection", async (t) => {
  const db = await openPostgres({ connectionString: await createTestPostgresDatabase(t), max: 1 });
  t.teardown(db.close);
  const query = () => db.db.selectFrom("pg_class").select("relname").where("relname", "=", "pg_class").execute();
  await query();
  await query();
  const { rows } = await import("kysely").then(({ sql }) =>
    sql<{ statement: string }>`select statement from pg_prepared_statements where statement like '%from "pg_class"%'`.execute(db.db),
  );
  t.equal(rows.length, 1, "one prepared statement for the query's text on the one connection");
});

t.test("on Postgres a named prepared statement that fails rejects with the database's error, and the connection stays usable", async (t) => {
  const db = await openPostgres({ connectionString: await createTestPostgresDatabase(t), max: 1 });
  t.teardown(db.close);
  await db.db.schema.createTable("things").addColumn("id", "integer", (c) => c.primaryKey()).execute();
  const insert = (id: number) => db.db.insertInto("things").values({ id }).execute();
  await insert(1);
  const error = await insert(1).then(
    () => undefined,
    (e: unknown) => e as { code?: string },
  );
  t.equal(error?.code, "23505", "the unique violation reaches the caller with its SQLSTATE");
  await insert(2);
  const rows = await db.db.selectFrom("things").select("id").orderBy("id").execute();
  t.same(rows, [{ id: 1 }, { id: 2 }], "the same statement runs again on the one connection");
});

/** A table of ids and the compiled statements the tests below run on it. */
const thingsOf = async (db: SqlDatabase) => {
  await db.db.schema.createTable("things").addColumn("id", "integer", (c) => c.primaryKey()).execute();
  const insert = compiledOnce<{ id: number }>((ex, p) => ex.insertInto("things").values({ id: p("id") }));
  const ids = compiledOnce<Record<never, never>>((ex) => ex.selectFrom("things").select("id").orderBy("id"));
  const idsNow = () => Effect.map(runStatement(db, ids, {}), ({ rows }) => rows.map((row) => Number(row.id)));
  return { insert, idsNow };
};

t.test("a compiled statement runs in the open transaction and rolls back with it", (t) =>
  forEachDialect(t, "runStatement in a transaction", async (t, db) => {
    const { insert, idsNow } = await thingsOf(db);
    const tx = makeTransactions(db);
    const failed = await Effect.runPromiseExit(
      tx.run(
        Effect.gen(function* () {
          yield* runStatement(db, insert, { id: 1 });
          t.same(yield* idsNow(), [1], "the transaction reads its own write");
          return yield* Effect.fail("undo");
        }),
      ),
    );
    t.equal(Exit.isFailure(failed), true);
    t.same(await Effect.runPromise(idsNow()), [], "the write rolled back with the transaction");
    await Effect.runPromise(tx.run(runStatement(db, insert, { id: 2 })));
    t.same(await Effect.runPromise(idsNow()), [2], "a committed write stays");
  }, []),
);

t.test("a compiled write outside a transaction waits for the open one and is not part of it", (t) =>
  forEachDialect(t, "runStatement beside a transaction", async (t, db) => {
    const { insert, idsNow } = await thingsOf(db);
    const tx = makeTransactions(db);
    const program = Effect.gen(function* () {
      const inserted = yield* Deferred.make<void>();
      const release = yield* Deferred.make<void>();
      const transaction = yield* Effect.fork(
        Effect.exit(
          tx.run(
            Effect.gen(function* () {
              yield* runStatement(db, insert, { id: 1 });
              yield* Deferred.succeed(inserted, undefined);
              yield* Deferred.await(release);
              return yield* Effect.fail("undo");
            }),
          ),
        ),
      );
      yield* Deferred.await(inserted);
      // Issued while the transaction holds its connection (SQLite: the one write connection).
      const outside = yield* Effect.fork(runStatement(db, insert, { id: 3 }));
      yield* Effect.sleep("50 millis");
      yield* Deferred.succeed(release, undefined);
      yield* transaction.await;
      yield* outside.await;
      return yield* idsNow();
    });
    t.same(await Effect.runPromise(program), [3], "the transaction's write rolled back, the write beside it stayed");
  }, []),
);

t.test("a compiled statement's database error is a defect carrying the driver's error", (t) =>
  forEachDialect(t, "runStatement error", async (t, db) => {
    const { insert } = await thingsOf(db);
    const tx = makeTransactions(db);
    await Effect.runPromise(runStatement(db, insert, { id: 1 }));
    for (const [where, effect] of [
      ["outside a transaction", runStatement(db, insert, { id: 1 })],
      ["inside a transaction", tx.run(runStatement(db, insert, { id: 1 }))],
    ] as const) {
      const exit = await Effect.runPromiseExit(effect);
      const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none();
      t.match(Option.getOrUndefined(defect), { message: /UNIQUE|unique|duplicate/ }, `a duplicate key ${where} dies with the database's error`);
    }
  }, []),
);
