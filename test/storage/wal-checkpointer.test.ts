/**
 * WAL checkpoints off the request path (adapters/sqlite/WalCheckpointer.ts): with the checkpointer
 * thread, commits on the write connection never run SQLite's automatic checkpoint (its bound is
 * far away), yet the log is copied back into the database and restarts, so it stays small; every
 * commit stays visible.
 */
import Database from "better-sqlite3";
import { statSync } from "node:fs";
import t from "tap";
import { sql } from "kysely";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { startWalCheckpointer, writerCheckpointBoundPages } from "../../adapters/sqlite/WalCheckpointer.js";
import { createTestSqliteFile } from "../support/databases.js";

const payload = "x".repeat(3000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walSize = (filename: string): number => statSync(`${filename}-wal`).size;

t.test("the checkpointer thread checkpoints a log that its writer never checkpoints, so the log restarts", async (t) => {
  const filename = createTestSqliteFile(t);
  const writer = new Database(filename);
  t.teardown(() => writer.close());
  writer.pragma("journal_mode = WAL");
  writer.pragma("wal_autocheckpoint = 0");
  writer.exec("CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT)");
  const checkpointer = startWalCheckpointer(filename, 5);
  t.teardown(checkpointer.close);
  await checkpointer.ready;
  const insert = writer.prepare("INSERT INTO scratch (body) VALUES (?)");
  let largest = 0;
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 25; i++) insert.run(payload);
    largest = Math.max(largest, walSize(filename));
    await pause(30);
  }
  // 500 commits of a ~3 KB row log about 3 MB without a checkpoint; one round logs about 200 KB.
  t.ok(largest < 1_000_000, `the log restarted instead of growing (largest ${largest} bytes)`);
  await checkpointer.close();
  t.equal((writer.prepare("SELECT count(*) AS n FROM scratch").get() as { n: number }).n, 500, "every commit is there");
});

/** Commits 25 rows a round, pausing between rounds; answers the log's size at the end. */
const writeRounds = async (db: Awaited<ReturnType<typeof openSqlite>>, filename: string, rounds: number): Promise<number> => {
  await db.db.schema.createTable("scratch").addColumn("id", "integer", (c) => c.primaryKey()).addColumn("body", "text").execute();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 25; i++) await db.db.insertInto("scratch").values({ body: payload }).execute();
    await pause(30);
  }
  return walSize(filename);
};

t.test("openSqlite checkpoints a file database from its thread; commits checkpoint only past a far bound", async (t) => {
  const filename = createTestSqliteFile(t);
  const db = await openSqlite({ filename, checkpointIntervalMs: 10 });
  t.teardown(db.close);
  const bound = await db.db.executeQuery<{ wal_autocheckpoint: number }>(sql`PRAGMA wal_autocheckpoint`.compile(db.db));
  t.equal(Number(bound.rows[0]?.wal_autocheckpoint), writerCheckpointBoundPages, "the write connection's own bound");
  const size = await writeRounds(db, filename, 40);
  // 1,000 commits log about 12 MB with no checkpoint below the bound (the control below); the log
  // stops growing once the thread runs, whenever it started (under tap a thread takes a while).
  t.ok(size < 8_000_000, `the log stopped growing (${size} bytes)`);
  const count = await db.db.selectFrom("scratch").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  t.equal(Number(count.n), 1000, "every commit is there");
});

t.test("control: without the thread and with the same bound, the same commits grow the log", async (t) => {
  const filename = createTestSqliteFile(t);
  const db = await openSqlite({ filename, checkpointIntervalMs: 0 });
  t.teardown(db.close);
  await db.db.executeQuery(sql.raw(`PRAGMA wal_autocheckpoint = ${writerCheckpointBoundPages}`).compile(db.db));
  const size = await writeRounds(db, filename, 40);
  t.ok(size > 8_000_000, `the log grew to ${size} bytes`);
});

t.test("closing the database waits for the checkpointer thread and leaves the file whole", async (t) => {
  const filename = createTestSqliteFile(t);
  const db = await openSqlite({ filename, checkpointIntervalMs: 10 });
  await writeRounds(db, filename, 2);
  await db.close();
  const reopened = await openSqlite({ filename, checkpointIntervalMs: 0 });
  t.teardown(reopened.close);
  const count = await reopened.db.selectFrom("scratch").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  t.equal(Number(count.n), 50, "every commit made before the close is in the file");
});
