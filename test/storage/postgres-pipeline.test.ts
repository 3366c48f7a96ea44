/**
 * Postgres transactions in pg's pipeline mode (adapters/postgres/PooledConnections.ts): BEGIN goes
 * out with the transaction's first statement when that statement only reads, or writes behind a
 * BEGIN the pool has seen answered; before that a first write waits for BEGIN's answer; a
 * transaction that sent nothing sends no COMMIT.
 */
import { Deferred, Effect, Exit } from "effect";
import { sql } from "kysely";
import pg from "pg";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { pooledConnections } from "../../adapters/postgres/PooledConnections.js";
import { compiledOnce, runStatement } from "../../adapters/sql/runQuery.js";
import type { PooledConnections } from "../../adapters/sql/SqlDatabase.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { createTestPostgresDatabase, type TapTest } from "../support/databases.js";

const openDatabase = async (t: TapTest, max: number) => {
  const db = await openPostgres({ connectionString: await createTestPostgresDatabase(t), max });
  t.teardown(db.close);
  await sql`create table r (id integer primary key, note text not null)`.execute(db.db);
  await sql`insert into r (id, note) values (1, 'one')`.execute(db.db);
  return db;
};

t.test("a refused BEGIN fails the transaction's first statement, and a first write never runs on its own", async (t) => {
  const db = await openDatabase(t, 3);
  const connections = db.transactionConnections as PooledConnections;
  const sendNow = db.sendNow!;
  const sendLater = db.sendLater!;
  const invalidBegin = "BEGIN ISOLATION LEVEL NONSENSE";

  const reader = await connections.take();
  reader.begin(invalidBegin);
  const read = sendNow(reader.executor, { sql: "select note from r where id = $1", parameters: [1] } as never)!;
  await t.rejects(read, { message: /syntax|NONSENSE/ }, "the read sent with it fails with BEGIN's error");
  await reader.rollback();
  reader.give(false);

  const writer = await connections.take();
  writer.begin(invalidBegin);
  t.equal(sendLater(writer.executor, { sql: "insert into r (id, note) values ($1, $2)", parameters: [2, "two"] } as never), false, "a write before BEGIN's answer is not sent unanswered");
  const write = sendNow(writer.executor, { sql: "insert into r (id, note) values ($1, $2)", parameters: [2, "two"] } as never)!;
  await t.rejects(write, { message: /syntax|NONSENSE/ }, "the first write fails with BEGIN's error");
  await writer.rollback();
  writer.give(false);
  const rows = await sql<{ id: number }>`select id from r order by id`.execute(db.db);
  t.same(rows.rows.map((r) => r.id), [1], "the write did not run in autocommit mode");
});

t.test("a transaction's first read runs inside it: the row lock it takes holds until its COMMIT", async (t) => {
  const db = await openDatabase(t, 4);
  const tx = makeTransactions(db);
  const lock = compiledOnce<{ id: number }>((ex, p) => ex.selectFrom("r").select("note").where("id", "=", p("id")).forUpdate());
  const write = compiledOnce<{ id: number; note: string }>((ex, p) => ex.updateTable("r").set({ note: p("note") }).where("id", "=", p("id")));
  const locked = Effect.runSync(Deferred.make<void>());
  const release = Effect.runSync(Deferred.make<void>());
  const holder = Effect.runPromise(
    tx.run(
      Effect.gen(function* () {
        yield* runStatement(db, lock, { id: 1 });
        yield* Deferred.succeed(locked, undefined);
        yield* Deferred.await(release);
        yield* runStatement(db, write, { id: 1, note: "first" });
      }),
    ),
  );
  await Effect.runPromise(Deferred.await(locked));
  // Another transaction's update of the locked row must wait: it gives up after its lock timeout.
  const blocked = await Effect.runPromiseExit(
    tx.run(Effect.zipRight(runStatement(db, compiledOnce(() => sql`set local lock_timeout = '200ms'`), {}), runStatement(db, write, { id: 1, note: "second" }))),
  );
  t.ok(Exit.isFailure(blocked), "the update waited for the lock and timed out");
  await Effect.runPromise(Deferred.succeed(release, undefined));
  await holder;
  const rows = await sql<{ note: string }>`select note from r where id = 1`.execute(db.db);
  t.equal(rows.rows[0]?.note, "first", "only the holder's write");
});

t.test("a transaction that ran no statement, committed or rolled back, leaves its connection clean", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const db = await openPostgres({ connectionString: url, max: 1 });
  t.teardown(db.close);
  const tx = makeTransactions(db);
  await Effect.runPromise(tx.run(Effect.void));
  await Effect.runPromiseExit(tx.run(Effect.fail("no")));
  // The pool's only connection is not left inside a transaction: this insert commits for everyone.
  await sql`create table e (id integer primary key)`.execute(db.db);
  await Effect.runPromise(tx.run(runStatement(db, compiledOnce<{ id: number }>((ex, p) => ex.insertInto("e").values({ id: p("id") })), { id: 1 })));
  const other = new pg.Client({ connectionString: url });
  other.on("error", () => undefined);
  await other.connect();
  t.teardown(() => other.end());
  t.same((await other.query("select id from e")).rows, [{ id: 1 }], "another session sees the commit");
});

t.test("once the pool has seen its BEGIN answered, a first write goes out with it, inside the transaction", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const pool = new pg.Pool({ connectionString: url, max: 2, pipeline: true } as pg.PoolConfig);
  // Ended by the test once it has checked; a client still closing when the teardown terminates the
  // database's sessions must not fail the test (CI saw "terminating connection" here once).
  let ended = false;
  pool.on("error", () => undefined);
  t.teardown(() => (ended ? undefined : pool.end()));
  await pool.query("create table w (id integer primary key)");
  // What each client sends, and when BEGIN's answer arrives, in order.
  const events: string[] = [];
  const connections = pooledConnections({
    connect: async () => {
      const client = (await pool.connect()) as pg.PoolClient;
      const query = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<unknown>;
      const traced = Object.assign(Object.create(client) as pg.PoolClient, {
        query: (text: string, values?: unknown[]) => {
          events.push(`send ${text.split(" ")[0]}`);
          const answer = query(text, values);
          if (text === "BEGIN") void answer.then(() => events.push("BEGIN answered"), () => undefined);
          return answer;
        },
        release: (destroy?: boolean) => client.release(destroy),
      });
      return traced as never;
    },
  });
  const write = async (id: number, commit: boolean) => {
    events.length = 0;
    const connection = await connections.take();
    connection.begin("BEGIN");
    await connections.sendNow(connection.executor, { sql: "insert into w (id) values ($1)", parameters: [id] } as never);
    await (commit ? connection.commit() : connection.rollback());
    connection.give(false);
    return [...events];
  };
  const first = await write(1, true);
  t.same(first.slice(0, 3), ["send BEGIN", "BEGIN answered", "send insert"], "the pool's first BEGIN is answered before the write goes out");
  const second = await write(2, false);
  t.same(second.slice(0, 2), ["send BEGIN", "send insert"], "then the write goes out with BEGIN, before its answer");
  t.same((await pool.query("select id from w order by id")).rows, [{ id: 1 }], "and it ran inside the transaction: the rollback undid it");
  const third = await write(3, true);
  t.same(third.slice(0, 2), ["send BEGIN", "send insert"], "a later transaction too");
  t.same((await pool.query("select id from w order by id")).rows, [{ id: 1 }, { id: 3 }], "committed with its transaction");
  ended = true;
  await pool.end();
});
