/**
 * SQLite across processes: two processes migrating one file at once apply each migration once
 * (BEGIN IMMEDIATE + busy_timeout serialize them). Real child processes, because one process
 * with two better-sqlite3 connections would block its own event loop while waiting.
 */
import { spawn } from "node:child_process";
import t from "tap";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { createTestSqliteFile, kernelMigrationLabels } from "../support/databases.js";

const migrationsModule = new URL("../../adapters/sql/Migrations.js", import.meta.url).href;
const sqliteModule = new URL("../../adapters/sqlite/openSqlite.js", import.meta.url).href;

/** Runs `migrate` on `filename` in a child process; resolves with the labels it applied. */
const migrateInChild = (filename: string): Promise<string[]> =>
  new Promise((resolve, reject) => {
    const script = `
      const { migrate } = await import(${JSON.stringify(migrationsModule)});
      const { openSqlite } = await import(${JSON.stringify(sqliteModule)});
      const db = await openSqlite({ filename: ${JSON.stringify(filename)} });
      const result = await migrate(db);
      await db.close();
      process.stdout.write(JSON.stringify(result.applied));
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`child failed (${code}): ${err}`))));
  });

t.test("two processes migrating one SQLite file at once apply each migration exactly once", async (t) => {
  const filename = createTestSqliteFile(t);
  const [a, b] = await Promise.all([migrateInChild(filename), migrateInChild(filename)]);
  t.same([...a, ...b].sort(), kernelMigrationLabels);
  const db = await openSqlite({ filename });
  t.teardown(db.close);
  const rows = await db.db.selectFrom("domainkit_migrations").selectAll().execute();
  t.equal(rows.length, kernelMigrationLabels.length);
});
