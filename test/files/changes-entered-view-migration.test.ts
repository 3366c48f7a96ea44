/**
 * Files migration 10 on a database that already has a change log (spec, Resources: Change is the
 * "ordered, monotonic metadata log"; append-only): every change is kept as it was, its recipient
 * with it; the log's database rules still hold after SQLite rebuilt the table (no update, no
 * delete above the retention mark, sequence strictly increasing), the index of the changes
 * addressed to one user is still there, and a `node.entered_view` change, as a `node.left_view`
 * one, must name its one recipient while no other change may — SQLite and Postgres.
 */
import t from "tap";
import { sql } from "kysely";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { changeRows, filesRuntime, filesTestModules, workspaceWithDriveRows } from "./support.js";

const beforeTen = { name: "files", migrations: filesMigrations.filter((m) => m.version < 10) };

forEachDialect(
  t,
  "migration 10 keeps the change log and its rules, and pairs node.entered_view with its recipient",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDriveRows(env, db, "ws1", "ann");
    const change = changeRows(db, "ws1", root, "ann");
    await db.db.insertInto("fs_changes").values([change(1, "node.renamed"), change(2, "node.left_view", "ben")]).execute();
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.entered_view", "ben")).execute(), "before it, no entered-view change");

    await migrate(db, filesTestModules);
    const kept = await db.db.selectFrom("fs_changes").select(["seq", "type", "actor_id", "recipient_id"]).orderBy("seq").execute();
    t.same(
      kept.map((r) => [Number(r.seq), r.type, r.actor_id, r.recipient_id]),
      [
        [1, "node.renamed", "ann", null],
        [2, "node.left_view", "ann", "ben"],
      ],
      "every change kept, with its recipient",
    );
    await t.rejects(db.db.updateTable("fs_changes").set({ type: "node.created" }).execute(), "still no update");
    await t.rejects(db.db.deleteFrom("fs_changes").execute(), "still no delete above the retention mark");
    await t.rejects(db.db.insertInto("fs_changes").values(change(2, "node.renamed")).execute(), "still no used sequence number");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.entered_view")).execute(), "an entered-view change names its recipient");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.left_view")).execute(), "a left-view change still does");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.created", "ben")).execute(), "no other change names one");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.visited", "ben")).execute(), "no unknown type");
    await db.db.insertInto("fs_changes").values(change(3, "node.entered_view", "ben")).execute();
    await db.db.insertInto("fs_changes").values(change(4, "node.left_view", "ben")).execute();
    t.equal(Number((await db.db.selectFrom("fs_changes").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n), 4, "entered- and left-view changes with their recipient are stored");

    const indexes =
      db.dialect === "sqlite"
        ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fs_changes'`.execute(db.db)
        : await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'fs_changes'`.execute(db.db);
    t.ok(
      indexes.rows.some((r) => r.name === "fs_changes_recipient"),
      "the index of the changes addressed to one user is still there",
    );
  },
  [...testModules, beforeTen],
);
