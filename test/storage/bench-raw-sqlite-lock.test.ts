/**
 * The benchmark's raw SQLite handle (bench/RawDatabase.ts) runs in the server's process: a write
 * lock it meets is the server's — a transaction held open across an await — and only the event
 * loop the synchronous handle blocks can release it. A full bench run lost its
 * `delivery-locations [sqlite]` row to "database is locked" so. The raw runner now fails at once
 * on the lock, yields, and runs the operation again (bench/RawLoop.ts retryWhileLocked).
 */
import t from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { openRawSqlite } from "../../bench/RawDatabase.js";
import { rawRunner } from "../../bench/RawStatements.js";

t.test("a raw SQLite write that meets a server transaction held open across an await runs once the server has committed, instead of failing with 'database is locked'", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-bench-raw-"));
  const file = join(dir, "db.sqlite");
  const db = await openSqlite({ filename: file, checkpointIntervalMs: 0 });
  const raw = openRawSqlite(file);
  t.teardown(async () => {
    await raw.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await sql`CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT NOT NULL)`.execute(db.db);
  if (raw.dialect !== "sqlite") throw new Error("a SQLite raw handle");

  let serverCommitted = false;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = db.db.transaction().execute(async (tx) => {
    await sql`INSERT INTO item (id, source) VALUES (1, 'server')`.execute(tx);
    await held;
  }).then(() => void (serverCommitted = true));
  await sleep(5);

  t.throws(() => raw.sqlite.exec("BEGIN IMMEDIATE"), /locked/i, "the bare handle meets the server's lock and fails at once (no busy wait on the blocked loop)");

  const ran = rawRunner(raw).inTransaction([["INSERT INTO item (id, source) VALUES (2, 'raw')", []]]);
  t.ok(ran instanceof Promise, "the runner's transaction met the lock and waits to run again");
  setTimeout(release, 20);
  await ran;
  await server;
  t.ok(serverCommitted, "the server's transaction committed meanwhile");
  const rows = raw.sqlite.prepare("SELECT id, source FROM item ORDER BY id").all();
  t.same(rows, [{ id: 1, source: "server" }, { id: 2, source: "raw" }], "both writes landed, the raw one once");
});
