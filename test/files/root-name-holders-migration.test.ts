/**
 * Files migration 18 on a drive that already has nodes (security audit S5, RootNames.ts): each
 * existing child of the root, trashed ones too, gets its creator as the holder of its name (who
 * held it under the old rule), its version advanced by one as every change of a node is; nodes
 * below the root and purged stubs (which never change again) get none. Afterwards the database keeps root
 * names unique per holder only, and refuses a holder below the root — SQLite and Postgres.
 * Migration 20 refuses a grant removal that leaves a root name holder blind; migration 21 an update
 * that gives a root node a holder who sees it through no grant on it or on the root.
 */
import { sql } from "kysely";
import t from "tap";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { filesTestModules } from "./support.js";

const beforeEighteen = { name: "files", migrations: filesMigrations.filter((m) => m.version < 18) };
const throughEighteen = { name: "files", migrations: filesMigrations.filter((m) => m.version <= 18) };
const beforeTwenty = { name: "files", migrations: filesMigrations.filter((m) => m.version < 20) };

/** Writes the drive of workspace ws1 (root node "root"); answers the time written, in the dialect's form. */
const seedDrive = async (db: SqlDatabase) => {
  const time = db.features.timeToDb(new Date());
  await db.db
    .insertInto("fs_drives")
    .values({ workspace_id: "ws1", root_node_id: "root", quota_bytes: 1000, used_bytes: 0, reserved_bytes: 0, change_seq: 0, pruned_through_seq: 0, acl_epoch: 1, created_at: time, updated_at: time })
    .execute();
  return time;
};

/** Rows of ws1 made at `time`: a folder (created by its holder, else ann, unless given) and an owner grant. */
const rowsAt = (time: unknown) => ({
  node: (id: string, parentId: string | null, name: string, holder: string | null, trashed = false, createdBy = holder ?? "ann") => ({
    id,
    workspace_id: "ws1",
    parent_id: parentId,
    name,
    kind: "folder",
    version: 1,
    trashed_at: trashed ? time : null,
    trash_root_id: trashed ? id : null,
    root_holder: holder,
    created_by: createdBy,
    created_at: time,
    updated_at: time,
  }),
  grant: (nodeId: string, userId: string) => ({ workspace_id: "ws1", node_id: nodeId, user_id: userId, role: "owner", granted_by: userId, created_at: time }),
});

forEachDialect(
  t,
  "migration 18 gives each existing root node its creator as holder, and then keeps root names unique per holder",
  async (t, db) => {
    const time = await seedDrive(db);
    // Before migration 18 a node has no holder column.
    const node = (id: string, parentId: string | null, name: string, createdBy: string, trashed = false) => {
      const { root_holder: _holder, ...row } = rowsAt(time).node(id, parentId, name, null, trashed, createdBy);
      return row;
    };
    await db.db.insertInto("fs_nodes").values(node("root", null, "root", "ann")).execute();
    await db.db.insertInto("fs_nodes").values([node("plans", "root", "Plans", "ann"), node("budget", "root", "Budget", "ben"), node("old", "root", "Old", "ben", true), node("stub", "root", "stub", "ben", true)]).execute();
    await db.db.updateTable("fs_nodes").set({ purged_at: time, version: 2 }).where("id", "=", "stub").execute();
    await db.db.insertInto("fs_nodes").values(node("inner", "plans", "Inner", "ben")).execute();

    await migrate(db, [...testModules, throughEighteen]);
    const holders = await db.db.selectFrom("fs_nodes").select(["id", "root_holder", "version"]).orderBy("id").execute();
    t.same(
      holders.map((r) => [r.id, r.root_holder, Number(r.version)]),
      [
        ["budget", "ben", 2],
        ["inner", null, 1],
        ["old", "ben", 2],
        ["plans", "ann", 2],
        ["root", null, 1],
        ["stub", null, 2],
      ],
      "root children held by their creators, trashed ones too; the root, nodes below it and purged stubs (never changed again) by no one",
    );
    await db.db.insertInto("fs_nodes").values({ ...node("bens-plans", "root", "Plans", "ben"), root_holder: "ben" }).execute();
    t.pass("another member's root node of a taken name is stored");
    await t.rejects(db.db.insertInto("fs_nodes").values({ ...node("anns-again", "root", "Plans", "ann"), root_holder: "ann" }).execute(), "the same holder's root name is still unique");
    await t.rejects(db.db.insertInto("fs_nodes").values(node("shared-scope", "plans", "Inner", "carl")).execute(), "below the root names stay unique among all siblings");
    await t.rejects(db.db.insertInto("fs_nodes").values({ ...node("held-below", "plans", "Other", "ben"), root_holder: "ben" }).execute(), "a node below the root holds no name");
    await t.rejects(db.db.updateTable("fs_nodes").set({ root_holder: "ben", version: 2 }).where("id", "=", "inner").execute(), "nor is given one");
  },
  [...testModules, beforeEighteen],
);

forEachDialect(
  t,
  "migration 20: a root name holder who no longer sees the node holds it no more, and no grant removal leaves a holder without sight of it",
  async (t, db) => {
    const time = await seedDrive(db);
    const { node, grant } = rowsAt(time);
    await db.db.insertInto("fs_nodes").values(node("root", null, "root", null)).execute();
    await db.db
      .insertInto("fs_nodes")
      .values([node("kept", "root", "Kept", "ben"), node("blind", "root", "Blind", "ben"), node("via-root", "root", "Shared", "carl"), node("old", "root", "Old", "ben", true)])
      .execute();
    await db.db.insertInto("fs_acl_entries").values([grant("kept", "ben"), grant("blind", "ann"), grant("root", "carl")]).execute();

    await migrate(db, filesTestModules);
    const holders = await db.db.selectFrom("fs_nodes").select(["id", "root_holder", "version"]).where("id", "<>", "root").orderBy("id").execute();
    t.same(
      holders.map((r) => [r.id, r.root_holder, Number(r.version)]),
      [
        ["blind", "blind", 2],
        ["kept", "ben", 1],
        ["old", "ben", 1],
        ["via-root", "carl", 1],
      ],
      "a holder who sees the node by no grant holds its name no more; one who sees it by its own grant or the root's keeps it; a trashed node is left to its restore",
    );
    const revoke = (nodeId: string, userId: string) => db.db.deleteFrom("fs_acl_entries").where("node_id", "=", nodeId).where("user_id", "=", userId).execute();
    await t.rejects(revoke("kept", "ben"), "the holder's own grant is not removed while they hold the name");
    await t.rejects(revoke("root", "carl"), "nor the root grant through which a holder sees their root node");
    await t.resolves(revoke("blind", "ann"), "a grant of a member who holds no name there is removed");
    await db.db.insertInto("fs_acl_entries").values(grant("kept", "ann")).execute();
    await db.db.updateTable("fs_nodes").set({ root_holder: "ann", version: 2 }).where("id", "=", "kept").execute();
    await t.resolves(revoke("kept", "ben"), "once the name has passed on, the old holder's grant is removed");
  },
  [...testModules, beforeTwenty],
);

forEachDialect(
  t,
  "migration 21: an update gives a root node's name only to a member who sees the node, through a grant on it or on the root",
  async (t, db) => {
    const time = await seedDrive(db);
    const { node, grant } = rowsAt(time);
    await db.db.insertInto("fs_nodes").values(node("root", null, "root", null)).execute();
    await db.db.insertInto("fs_nodes").values([node("plans", "root", "Plans", "ann"), node("team", "root", "Team", "ann"), node("old", "root", "Old", "ann", true)]).execute();
    await db.db.insertInto("fs_nodes").values(node("inner", "team", "Inner", null)).execute();
    await db.db.insertInto("fs_acl_entries").values([grant("plans", "ann"), grant("team", "ann"), grant("old", "ann"), grant("root", "carl")]).execute();
    const refused = { message: /an update gives a root name only to a member who sees the node/ };
    const update = (id: string, set: Record<string, unknown>) =>
      db.db.updateTable("fs_nodes").set({ ...set, version: sql`version + 1` }).where("workspace_id", "=", "ws1").where("id", "=", id).execute();

    await t.rejects(update("plans", { root_holder: "dan" }), refused, "a holder with no grant on the node or the root is refused");
    await t.resolves(update("plans", { root_holder: "carl" }), "a holder who sees it through the root's grant is given it");
    await db.db.insertInto("fs_acl_entries").values(grant("plans", "ben")).execute();
    await t.resolves(update("plans", { root_holder: "ben" }), "so is one who sees it through a grant of their own");
    await t.resolves(update("plans", { root_holder: "plans" }), "and its own id, no member's name");

    await t.rejects(update("inner", { parent_id: "root", root_holder: "dan" }), refused, "a move into the root held by a member who does not see the node there is refused");
    await db.db.insertInto("fs_acl_entries").values(grant("inner", "dan")).execute();
    await t.resolves(update("inner", { parent_id: "root", root_holder: "dan" }), "once the mover has a grant on it, it lands held by them");

    await t.rejects(update("old", { trashed_at: null, trash_root_id: null, root_holder: "erin" }), refused, "a restore at the root held by a member who does not see the node is refused");
    await t.resolves(update("old", { trashed_at: null, trash_root_id: null, root_holder: "ann" }), "a restore held by one who sees it is stored");

    const holders = await db.db.selectFrom("fs_nodes").select(["id", "root_holder"]).where("id", "<>", "root").orderBy("id").execute();
    t.same(
      holders.map((r) => [r.id, r.root_holder]),
      [
        ["inner", "dan"],
        ["old", "ann"],
        ["plans", "plans"],
        ["team", "ann"],
      ],
      "only the allowed updates were stored",
    );
  },
  filesTestModules,
);

forEachDialect(
  t,
  "migration 22: a create gives a root node's name only to a member who sees the node, checked at its node.created change (written after the creator's grant)",
  async (t, db) => {
    const time = await seedDrive(db);
    const { node, grant } = rowsAt(time);
    await db.db.insertInto("fs_nodes").values(node("root", null, "root", null)).execute();
    await db.db.insertInto("fs_acl_entries").values(grant("root", "carl")).execute();
    let seq = 0;
    const created = (nodeId: string, type = "node.created") =>
      db.db.insertInto("fs_changes").values({ workspace_id: "ws1", seq: ++seq, node_id: nodeId, type, version_id: null, actor_id: "ann", created_at: time }).execute();
    const refused = { message: /a create gives a root name only to a member who sees the node/ };

    // The node inserted before its creator's grant, as a create writes them, in one transaction.
    await db.db.insertInto("fs_nodes").values([node("plans", "root", "Plans", "ann"), node("mine", "root", "Mine", "ben"), node("carls", "root", "Carl's", "carl")]).execute();
    await t.rejects(created("plans"), refused, "a create whose holder has no grant on the node or the root is refused");
    await db.db.insertInto("fs_acl_entries").values(grant("plans", "ann")).execute();
    await t.resolves(created("plans"), "once the creator's grant is written, the create is recorded");
    await t.resolves(created("carls"), "a holder who sees the node through the root's grant passes");
    await db.db.insertInto("fs_nodes").values([node("held", "root", "Held", "held"), node("inner", "plans", "Inner", null)]).execute();
    await t.resolves(created("held"), "a root node held by its own id passes");
    await t.resolves(created("inner"), "a node below the root holds no name and passes");
    await t.resolves(created("mine", "node.renamed"), "other changes are migration 21's to check");
  },
  filesTestModules,
);
