/**
 * Change log retention (spec: a cursor older than the retention window answers cursor_expired
 * with a restart point): the daily run advances `pruned_through_seq` over changes older than the
 * retention and deletes them; an old cursor answers 410 cursor_expired with the end of the log; a
 * cursor at the mark still reads; the database refuses deleting a change above the mark and
 * any update.
 */
import t from "tap";
import { pruneChanges, sweepChanges } from "../../core/files/ChangeRetention.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { changeCursor, listChanges } from "../../core/files/ListChanges.js";
import { at } from "../worker/fixtures.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";

const dayMs = 86_400_000;

t.test("changes older than the retention are pruned: an older cursor answers cursor_expired with the restart point, the mark still reads", (t) =>
  forEachFilesDialect(t, "change retention", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const mk = (name: string, when: number) => env.run(at(when)(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name })));
    const t0 = Date.now();
    await mk("a", t0 - 100 * dayMs);
    await mk("b", t0 - 95 * dayMs);
    await mk("c", t0 - 10 * dayMs);
    t.same(await env.run(pruneChanges("ws1")), { prunedThroughSeq: 2, deleted: 2 }, "the two changes older than 90 days");
    const rows = await db.db.selectFrom("fs_changes").select("seq").where("workspace_id", "=", "ws1").orderBy("seq").execute();
    t.same(rows.map((r) => Number(r.seq)), [3]);
    t.match(await env.attempt(listChanges({ userId: "ann", workspaceId: "ws1", cursor: changeCursor(1), limit: 50 })), {
      ok: false,
      error: { code: "cursor_expired", restartCursor: changeCursor(3) },
    }, "410 with the end of the log");
    const fromMark = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: changeCursor(2), limit: 50 }));
    t.same(fromMark.data.map((c) => c.seq), [3], "a cursor at the mark continues");
    t.same((await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: null, limit: 50 }))).data.map((c) => c.seq), [3], "no cursor starts at the mark");
    t.same(await env.run(pruneChanges("ws1")), { prunedThroughSeq: 2, deleted: 0 }, "a rerun prunes nothing");
    t.equal(await env.run(sweepChanges({ day: "2026-01-01", after: null })), 1, "the daily sweep visits the drive");
  }),
);

t.test("the database refuses deleting a change above the mark and any update of the log", (t) =>
  forEachFilesDialect(t, "change log guard", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await env.run(at(Date.now() - 100 * dayMs)(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "old" })));
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "new" }));
    await t.rejects(db.db.deleteFrom("fs_changes").where("seq", "=", 2).execute(), "above the mark: refused");
    await t.rejects(db.db.deleteFrom("fs_changes").where("seq", "=", 1).execute(), "not yet pruned: refused too");
    await t.rejects(db.db.updateTable("fs_changes").set({ actor_id: "mallory" }).where("seq", "=", 1).execute(), "updates are refused");
    await db.db.updateTable("fs_drives").set({ pruned_through_seq: 1 }).where("workspace_id", "=", "ws1").execute();
    await db.db.deleteFrom("fs_changes").where("seq", "=", 1).execute();
    t.same((await db.db.selectFrom("fs_changes").select("seq").execute()).map((r) => Number(r.seq)), [2], "at or below the mark: allowed");
    await t.rejects(db.db.deleteFrom("fs_changes").where("seq", "=", 2).execute(), "the row above the mark stays refused");
  }),
);
