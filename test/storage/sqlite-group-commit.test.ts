/**
 * Group commit on SQLite's write connection (adapters/sqlite/GroupCommit.ts), on real
 * better-sqlite3 connections to one file: transactions begun in one turn of the event loop share a
 * COMMIT; none is told it committed before its writes are visible to another connection; a
 * failing member is undone alone; a failing COMMIT fails every member and writes nothing; a
 * statement that is not a transaction never runs inside the group; groups are bounded.
 */
import t, { type Test } from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Effect } from "effect";
import { GroupCommit, settleOpenGroups, type GroupCommitLimits } from "../../adapters/sqlite/GroupCommit.js";
import { WriterMutex } from "../../adapters/sqlite/WriterMutex.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { currentExecutor, makeTransactions } from "../../adapters/sql/Transactions.js";
import { CompiledQuery, sql } from "kysely";
import { runBound } from "../../adapters/sql/runOnExecutor.js";

/** A file database with a writer driven by a GroupCommit, a second connection, and a count of COMMITs. */
const setup = (t: Test, limits?: GroupCommitLimits) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-group-commit-"));
  const file = join(dir, "db.sqlite");
  const writer = new Database(file);
  writer.pragma("journal_mode = WAL");
  writer.pragma("foreign_keys = ON");
  writer.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE item (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  const other = new Database(file, { readonly: true });
  const statements: string[] = [];
  const mutex = new WriterMutex();
  const group = new GroupCommit(
    {
      run: (text) => {
        statements.push(text);
        writer.prepare(text).run();
      },
      inTransaction: () => writer.inTransaction,
    },
    mutex,
    limits,
  );
  t.teardown(() => {
    other.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const insert = (id: number, parentId: number | null = null) => writer.prepare("INSERT INTO item (id, parent_id) VALUES (?, ?)").run(id, parentId);
  const visible = (id: number) => other.prepare("SELECT count(*) AS n FROM item WHERE id = ?").get(id) as { n: number };
  const commits = () => statements.filter((s) => s === "COMMIT").length;
  /** One transaction as Transactions.ts runs it: take, begin, work, end. */
  const transaction = async (work: () => void): Promise<void> => {
    if (!group.tryTake()) await group.take();
    group.begin("BEGIN IMMEDIATE");
    let ok = true;
    try {
      work();
    } catch {
      ok = false;
    }
    const committing = group.end(ok);
    if (committing !== undefined) await committing;
    if (!ok) throw new Error("the work failed");
  };
  return { writer, mutex, group, insert, visible, commits, transaction };
};

/** A file database opened with openSqlite, a table `item`, and a read-only connection of its own to the file. */
const openItems = async (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-group-commit-"));
  const file = join(dir, "db.sqlite");
  const db = await openSqlite({ filename: file, checkpointIntervalMs: 0 });
  const other = new Database(file, { readonly: true });
  t.teardown(async () => {
    other.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`CREATE TABLE item (id INTEGER PRIMARY KEY)`.execute(db.db);
  const visible = (...ids: number[]) => (other.prepare(`SELECT count(*) AS n FROM item WHERE id IN (${ids.map(() => "?").join(", ")})`).get(...ids) as { n: number }).n;
  return { db, file, visible };
};

t.test("transactions begun in one turn share one COMMIT, and each is told so only once its row is visible elsewhere", async (t) => {
  const { insert, visible, commits, transaction } = setup(t);
  const seen: number[] = [];
  await Promise.all(
    [1, 2, 3, 4, 5].map((id) =>
      transaction(() => insert(id)).then(() => {
        seen.push(visible(id).n);
      }),
    ),
  );
  t.same(seen, [1, 1, 1, 1, 1], "every member's row was visible on another connection when it was told it committed");
  t.equal(commits(), 1, "five transactions, one COMMIT");
});

t.test("a failing member is rolled back alone; the group's other members commit", async (t) => {
  const { insert, visible, commits, transaction } = setup(t);
  const outcomes = await Promise.allSettled([
    transaction(() => insert(1)),
    transaction(() => {
      insert(2);
      throw new Error("refused");
    }),
    transaction(() => insert(3)),
  ]);
  t.same(outcomes.map((o) => o.status), ["fulfilled", "rejected", "fulfilled"]);
  t.same([visible(1).n, visible(2).n, visible(3).n], [1, 0, 1], "the failed member's write is undone, the others' stand");
  t.equal(commits(), 1);
});

t.test("a first member that fails rolls back alone; the next transaction begins afresh", async (t) => {
  const { insert, visible, transaction } = setup(t);
  const outcomes = await Promise.allSettled([
    transaction(() => {
      insert(1);
      throw new Error("refused");
    }),
    transaction(() => insert(2)),
  ]);
  t.same(outcomes.map((o) => o.status), ["rejected", "fulfilled"]);
  t.same([visible(1).n, visible(2).n], [0, 1]);
});

t.test("a COMMIT that fails fails every member of the group and writes nothing", async (t) => {
  const { insert, visible, transaction } = setup(t);
  // Member 2 leaves a deferred foreign key violation: the shared COMMIT refuses the whole group.
  const outcomes = await Promise.allSettled([transaction(() => insert(1)), transaction(() => insert(2, 99)), transaction(() => insert(3))]);
  t.same(outcomes.map((o) => o.status), ["rejected", "rejected", "rejected"], "nobody is told it committed");
  t.match(String((outcomes[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
  t.same([visible(1).n, visible(2).n, visible(3).n], [0, 0, 0], "nothing of the group is written");
  await transaction(() => insert(4));
  t.equal(visible(4).n, 1, "the connection is usable afterwards");
});

t.test("a statement that is not a transaction waits for the group's COMMIT and never runs inside it", async (t) => {
  const { writer, mutex, insert, visible, transaction } = setup(t);
  const first = transaction(() => insert(1));
  // An autocommit statement asks for the connection while the group is open.
  let sawFirst = -1;
  let insideTransaction = true;
  const autocommit = mutex.lock().then(() => {
    insideTransaction = writer.inTransaction;
    sawFirst = visible(1).n;
    insert(2);
    mutex.unlock();
  });
  await Promise.all([first, autocommit]);
  t.equal(insideTransaction, false, "the statement ran outside any open transaction");
  t.equal(sawFirst, 1, "the group had committed before it ran");
  t.equal(visible(2).n, 1);
});

t.test("a group holds at most maxMembers transactions", async (t) => {
  const { insert, visible, commits, transaction } = setup(t, { maxMembers: 3, maxOpenMs: 1_000 });
  await Promise.all([1, 2, 3, 4, 5, 6, 7].map((id) => transaction(() => insert(id))));
  t.equal(commits(), 3, "seven transactions in groups of at most three");
  t.same([1, 2, 3, 4, 5, 6, 7].map((id) => visible(id).n), [1, 1, 1, 1, 1, 1, 1]);
});

t.test("maxMembers 1 commits every transaction on its own", async (t) => {
  const { insert, commits, transaction } = setup(t, { maxMembers: 1, maxOpenMs: 0 });
  await Promise.all([1, 2, 3].map((id) => transaction(() => insert(id))));
  t.equal(commits(), 3);
});

t.test("Transactions.run on openSqlite: concurrent transactions are each visible to another connection once they resolve", async (t) => {
  const { db, visible } = await openItems(t);
  const transactions = makeTransactions(db);
  const insertTwice = (id: number) =>
    transactions.run(
      Effect.flatMap(currentExecutor(db), (ex) =>
        Effect.promise(async () => {
          await sql`INSERT INTO item (id) VALUES (${id})`.execute(ex);
          await sql`INSERT INTO item (id) VALUES (${id + 1000})`.execute(ex);
        }),
      ),
    );
  const seen = await Promise.all(Array.from({ length: 12 }, (_, i) => Effect.runPromise(insertTwice(i)).then(() => visible(i, i + 1000))));
  t.same(seen, Array.from({ length: 12 }, () => 2), "both rows of each transaction were visible when it resolved");
});

t.test("writes outside a transaction among grouped transactions: each answered once visible elsewhere; a failing one fails alone", async (t) => {
  const { db, visible } = await openItems(t);
  await sql`INSERT INTO item (id) VALUES (0)`.execute(db.db);
  const transactions = makeTransactions(db);
  // Run synchronously on the held connection, so the transactions end in this turn and group.
  const inTransaction = (id: number) =>
    Effect.runPromise(transactions.run(Effect.flatMap(currentExecutor(db), (ex) => runBound(db, ex, CompiledQuery.raw(`INSERT INTO item (id) VALUES (${id})`)))));
  const outside = (id: number) => db.autocommit!.insertInto("item").values({ id }).execute();
  const writes: Array<[number, () => Promise<unknown>]> = [
    [1, () => inTransaction(1)],
    [2, () => outside(2)],
    [3, () => inTransaction(3)],
    [0, () => outside(0)],
    [4, () => outside(4)],
    [5, () => inTransaction(5)],
  ];
  const outcomes = await Promise.allSettled(writes.map(([id, write]) => write().then(() => visible(id))));
  t.same(
    outcomes.map((o) => (o.status === "fulfilled" ? o.value : "rejected")),
    [1, 1, 1, "rejected", 1, 1],
    "each write was visible when it was answered; the duplicate alone failed",
  );
  t.match(String((outcomes[3] as PromiseRejectedResult).reason), /UNIQUE|PRIMARY KEY/);
  t.equal(visible(0, 1, 2, 3, 4, 5), 6);
});

t.test("another connection of this process to the file writes while a group is open (its BEGIN would otherwise block the loop that commits the group)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-group-commit-"));
  const file = join(dir, "db.sqlite");
  const a = await openSqlite({ filename: file, checkpointIntervalMs: 0 });
  const b = await openSqlite({ filename: file, checkpointIntervalMs: 0 });
  t.teardown(async () => {
    await b.close();
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`CREATE TABLE item (id INTEGER PRIMARY KEY)`.execute(a.db);
  // Run synchronously on the held connection (as the repositories do): the transaction ends in this turn.
  const insert = (db: typeof a, id: number) =>
    makeTransactions(db).run(Effect.flatMap(currentExecutor(db), (ex) => runBound(db, ex, CompiledQuery.raw(`INSERT INTO item (id) VALUES (${id})`))));
  // A's transaction ends at once and waits for its group's COMMIT at the end of this turn.
  const first = Effect.runPromise(insert(a, 1));
  await Effect.runPromise(insert(b, 2));
  await b.autocommit!.insertInto("item").values({ id: 3 }).execute();
  await first;
  const rows = await a.db.selectFrom("item").select("id").orderBy("id").execute();
  t.same(rows.map((r) => r.id), [1, 2, 3], "every write committed, none refused as locked");
});

t.test("an embedder's own handle on the file writes at once after settleOpenGroups; without it, it meets the open group's lock", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-group-commit-"));
  const file = join(dir, "db.sqlite");
  const db = await openSqlite({ filename: file, checkpointIntervalMs: 0 });
  const own = new Database(file);
  // No busy wait: a write that meets the lock fails at once instead of blocking this event loop.
  own.pragma("busy_timeout = 0");
  t.teardown(async () => {
    own.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`CREATE TABLE item (id INTEGER PRIMARY KEY)`.execute(db.db);
  const insert = (id: number) =>
    makeTransactions(db).run(Effect.flatMap(currentExecutor(db), (ex) => runBound(db, ex, CompiledQuery.raw(`INSERT INTO item (id) VALUES (${id})`))));
  // The transaction ends at once; its group keeps the write lock until the end of this turn.
  const first = Effect.runPromise(insert(1));
  t.throws(() => own.exec("BEGIN IMMEDIATE"), /locked|busy/i, "without settling, the own handle meets the group's lock");
  await first;
  const second = Effect.runPromise(insert(2));
  settleOpenGroups(file);
  own.exec("BEGIN IMMEDIATE; INSERT INTO item (id) VALUES (3); COMMIT");
  await second;
  const rows = await db.db.selectFrom("item").select("id").orderBy("id").execute();
  t.same(rows.map((r) => r.id), [1, 2, 3], "the group committed first, then the own handle's write");
});
