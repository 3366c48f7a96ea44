/**
 * A search examines a bounded number of the index's matches per request (docs/known-gaps.md had a
 * broad query cost every match of the drive): when the bound stops it before the page is full, the
 * page is short — even empty — with a cursor after the last match examined, and following the
 * cursors finds every match the caller can see exactly once and none they cannot. SQLite and
 * Postgres, the index built with a bound of 5 matches per search.
 */
import t from "tap";
import { Effect } from "effect";
import { createFolder } from "../../core/files/CreateFolder.js";
import { searchNodes } from "../../core/files/SearchNodes.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

/** Every page of `q` for `userId`, following `next_cursor` until it is null. */
const allPages = async (env: FilesEnv, userId: string, q: string, limit: number) => {
  const pages: Array<{ names: string[]; cursor: string | null }> = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Awaited<ReturnType<typeof searchOnce>> = await searchOnce(env, userId, q, cursor, limit);
    pages.push({ names: page.data.map((n) => n.name), cursor: page.next_cursor });
    cursor = page.next_cursor;
    if (cursor === null || pages.length > 100) return pages;
  }
};

const searchOnce = (env: FilesEnv, userId: string, q: string, cursor: string | null, limit: number) => env.run(searchNodes({ userId, workspaceId: "ws1", q, cursor, limit }));

t.test("a broad search examines at most the bound per request: short or empty pages carry a cursor, and the pages hold every visible match once and no hidden one", (t) =>
  forEachFilesDialect(t, "bounded search", async (t, db) => {
    const env = filesRuntime(t, db, {}, { searchIndex: { maxExaminedMatches: 5 } });
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
    const shared = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: root, name: "otter shared" }));
    const hidden = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: root, name: "otter hidden" }));
    const index = (entry: { id: string; name: string }) =>
      env.run(Effect.flatMap(NodeSearchIndex, (r) => r.upsert({ workspaceId: "ws1", nodeId: entry.id, name: entry.name, contentType: null, versionId: null, seq: 1_000 })));
    await index(shared);
    await index(hidden);
    // 30 more matches: every third under the shared folder; the newest ones are hidden.
    const visible = ["otter shared"];
    for (let i = 1; i <= 30; i++) {
      const node = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: i % 3 === 0 ? shared.id : hidden.id, name: `otter ${String(i).padStart(2, "0")}` }));
      await index(node);
      if (i % 3 === 0) visible.unshift(node.name);
    }
    await env.run(Effect.flatMap(NodesRepository, (r) => r.putGrant({ workspaceId: shared.workspaceId, nodeId: shared.id, userId: "ann", role: "viewer", grantedBy: "adm", createdAt: new Date() })));

    const first = await searchOnce(env, "ann", "otter", null, 50);
    t.ok(first.data.length < visible.length, "the first page stops at the bound, short of every visible match");
    t.not(first.next_cursor, null, "and carries a cursor to go on");

    const pages = await allPages(env, "ann", "otter", 2);
    t.same(pages.flatMap((p) => p.names), visible, "every visible match exactly once, newest first, no hidden one");
    t.ok(pages.some((p) => p.names.length < 2 && p.cursor !== null), "a short page with a cursor is a valid page");

    const stranger = await allPages(env, "bob", "otter", 10);
    t.same(stranger.flatMap((p) => p.names), [], "a member who sees none of the matches finds nothing");
    t.ok(stranger.length > 1 && stranger[0]!.cursor !== null, "but gets empty pages with a cursor until the matches are examined");
    t.equal(stranger[stranger.length - 1]!.cursor, null, "and the last page ends the list");
  }),
);
