/**
 * Files migration 7 on a database that already has a change log (spec, Resources: Change is the
 * "ordered, monotonic metadata log"; append-only): every change is kept as it was, addressed to
 * nobody; the log's database rules still hold after SQLite rebuilt the table (no update, no
 * delete above the retention mark, sequence strictly increasing), and a `node.left_view` change
 * must name its one recipient while no other change may — SQLite and Postgres.
 */
import t from "tap";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { changeRows, filesRuntime, filesTestModules, workspaceWithDriveRows } from "./support.js";

const beforeSeven = { name: "files", migrations: filesMigrations.filter((m) => m.version < 7) };

forEachDialect(
  t,
  "migration 7 keeps the change log and its rules, and pairs node.left_view with its recipient",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDriveRows(env, db, "ws1", "ann");
    const change = changeRows(db, "ws1", root, "ann");
    await db.db.insertInto("fs_changes").values([change(1, "node.renamed"), change(2, "node.moved")]).execute();

    await migrate(db, filesTestModules);
    const kept = await db.db.selectFrom("fs_changes").select(["seq", "type", "actor_id", "recipient_id"]).orderBy("seq").execute();
    t.same(
      kept.map((r) => [Number(r.seq), r.type, r.actor_id, r.recipient_id]),
      [
        [1, "node.renamed", "ann", null],
        [2, "node.moved", "ann", null],
      ],
      "every change kept, addressed to nobody",
    );
    await t.rejects(db.db.updateTable("fs_changes").set({ type: "node.created" }).execute(), "still no update");
    await t.rejects(db.db.deleteFrom("fs_changes").execute(), "still no delete above the retention mark");
    await t.rejects(db.db.insertInto("fs_changes").values(change(2, "node.renamed")).execute(), "still no used sequence number");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.left_view")).execute(), "a left-view change names its recipient");
    await t.rejects(db.db.insertInto("fs_changes").values(change(3, "node.renamed", "ben")).execute(), "no other change names one");
    await db.db.insertInto("fs_changes").values(change(3, "node.left_view", "ben")).execute();
    t.equal(Number((await db.db.selectFrom("fs_changes").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n), 3, "a left-view change with its recipient is stored");
  },
  [...testModules, beforeSeven],
);
