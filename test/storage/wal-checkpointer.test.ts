/**
 * WAL checkpoints off the request path (adapters/sqlite/WalCheckpointer.ts): with the checkpointer
 * thread, commits on the write connection never run SQLite's automatic checkpoint (its bound is
 * far away), yet the log is copied back into the database and restarts, so it stays small; every
 * commit stays visible.
 */
import Database from "better-sqlite3";
import { openSync, readSync, closeSync, statSync } from "node:fs";
import t from "tap";
import { sql } from "kysely";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { startWalCheckpointer, writerCheckpointBoundPages } from "../../adapters/sqlite/WalCheckpointer.js";
import { createTestSqliteFile } from "../support/databases.js";

const payload = "x".repeat(3000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walSize = (filename: string): number => statSync(`${filename}-wal`).size;
/** The WAL header's checkpoint sequence number (bytes 12–15): it grows each time the log restarts. */
const walRestarts = (filename: string): number => {
  const header = Buffer.alloc(16);
  const fd = openSync(`${filename}-wal`, "r");
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
};

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
  const before = walRestarts(filename);
  let commits = 0;
  // Rounds continue until the log restarted twice, whenever the thread got going (a loaded test
  // run once took the thread past 500 commits); the writer itself never checkpoints.
  for (let round = 0; round < 80 && walRestarts(filename) - before < 2; round++) {
    for (let i = 0; i < 25; i++) insert.run(payload);
    commits += 25;
    await pause(30);
  }
  const restarts = walRestarts(filename) - before;
  t.ok(restarts >= 2, `the log restarted instead of growing (${restarts} times in ${commits} commits)`);
  await checkpointer.close();
  t.equal((writer.prepare("SELECT count(*) AS n FROM scratch").get() as { n: number }).n, commits, "every commit is there");
});

/**
 * Commits 25 rows a round, pausing between rounds, until `enough` says so or `rounds` ran; answers
 * the log's size and how often it restarted.
 */
const writeRounds = async (
  db: Awaited<ReturnType<typeof openSqlite>>,
  filename: string,
  rounds: number,
  enough: (restarts: number) => boolean = () => false,
): Promise<{ readonly size: number; readonly restarts: number; readonly commits: number }> => {
  await db.db.schema.createTable("scratch").addColumn("id", "integer", (c) => c.primaryKey()).addColumn("body", "text").execute();
  const before = walRestarts(filename);
  let commits = 0;
  for (let round = 0; round < rounds && !enough(walRestarts(filename) - before); round++) {
    for (let i = 0; i < 25; i++) await db.db.insertInto("scratch").values({ body: payload }).execute();
    commits += 25;
    await pause(30);
  }
  return { size: walSize(filename), restarts: walRestarts(filename) - before, commits };
};

t.test("openSqlite checkpoints a file database from its thread; commits checkpoint only past a far bound", async (t) => {
  const filename = createTestSqliteFile(t);
  const db = await openSqlite({ filename, checkpointIntervalMs: 10 });
  t.teardown(db.close);
  const bound = await db.db.executeQuery<{ wal_autocheckpoint: number }>(sql`PRAGMA wal_autocheckpoint`.compile(db.db));
  t.equal(Number(bound.rows[0]?.wal_autocheckpoint), writerCheckpointBoundPages, "the write connection's own bound");
  // The writer alone would not checkpoint below its bound (~32 MiB; the control below), so a
  // restarted log is the thread's doing; rounds continue until it restarted twice, whenever the
  // thread got going (under a loaded test run a thread can take a while to start).
  const { size, restarts, commits } = await writeRounds(db, filename, 80, (restarts) => restarts >= 2);
  t.ok(restarts >= 2, `the log restarted (${restarts} times in ${commits} commits)`);
  t.ok(size < writerCheckpointBoundPages * 4096, `below the writer's own bound (${size} bytes)`);
  const count = await db.db.selectFrom("scratch").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  t.equal(Number(count.n), commits, "every commit is there");
});

t.test("control: without the thread and with the same bound, the same commits grow the log and never restart it", async (t) => {
  const filename = createTestSqliteFile(t);
  const db = await openSqlite({ filename, checkpointIntervalMs: 0 });
  t.teardown(db.close);
  await db.db.executeQuery(sql.raw(`PRAGMA wal_autocheckpoint = ${writerCheckpointBoundPages}`).compile(db.db));
  const { size, restarts } = await writeRounds(db, filename, 40);
  t.equal(restarts, 0, "the log never restarted");
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
