/**
 * The change feed's work is bounded by the page: a caller who sees little of a busy log gets a
 * short page with `has_more` and a cursor past what was read, and reaches their changes by
 * following it; nothing they may see is skipped and nothing they may not see is shown.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { changeCursor, listChanges } from "../../core/files/ListChanges.js";
import type { ChangePage } from "../../core/files/model/Change.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";

t.test("a page scans a bounded stretch of the log: short pages carry has_more and a cursor past the scan, and the caller's changes still all arrive", (t) =>
  forEachFilesDialect(t, "bounded feed", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
    const hidden = await env.run(createFolder({ userId: "bob", workspaceId: "ws1", parentId: root, name: "bob's" }));
    const mine = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "ann's" }));
    // 5,000 changes on bob's folder after ann's first one (as if bob were busy), then one of ann's.
    const start = Number((await db.db.selectFrom("fs_drives").select("change_seq").where("workspace_id", "=", "ws1").executeTakeFirstOrThrow()).change_seq);
    const busy = 5_000;
    const at = db.dialect === "postgres" ? new Date() : new Date().toISOString();
    for (let from = 0; from < busy; from += 500) {
      const rows = Array.from({ length: 500 }, (_, i) => ({ workspace_id: "ws1", seq: start + from + i + 1, node_id: hidden.id, type: "node.renamed", version_id: null, actor_id: "bob", created_at: at }));
      await db.db.insertInto("fs_changes").values(rows).execute();
    }
    await db.db.updateTable("fs_drives").set({ change_seq: start + busy }).where("workspace_id", "=", "ws1").execute();
    const late = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: mine.id, name: "late" }));

    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const page: ChangePage = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor, limit: 50 }));
      pages++;
      seen.push(...page.data.map((c) => c.seq));
      t.ok(page.data.every((c) => c.nodeId !== hidden.id), `page ${pages}: nothing of bob's`);
      cursor = page.nextCursor;
      if (!page.hasMore) break;
      if (pages > 10) throw new Error("the feed did not end");
    }
    t.equal(pages, 3, "the scan bound (2,000 changes a page) splits 5,000 hidden changes over three pages");
    const mineSeq = seen[0]!;
    t.same(seen, [mineSeq, start + busy + 1], "ann's folder and the one made after bob's burst, each once, in order");
    t.equal(cursor, changeCursor(start + busy + 1), "the last cursor is the end of the log");
    t.ok(late.parentId === mine.id);
  }),
);
