/**
 * A search examines a bounded number of the index's matches per request (docs/known-gaps.md had a
 * broad query cost every match of the drive), without telling a reader who sees part of the drive
 * that hidden matches exist: such a reader's search looks only among the nodes they can see, so
 * their pages are full and the last one ends the list; only when they see more nodes than the
 * adapter's `maxScopedNodes` does it fall back to the scan, which then goes on past its bound until
 * the page is full or the matches end (conventions, Lists: a caller never learns that hidden rows
 * exist; docs/known-gaps.md had short pages with a cursor). A reader who sees more than the first walk's `firstScopedNodes` gets the bounded scan
 * first, and the search among their nodes when the scan comes out short. A reader with a grant on the root sees every node: theirs is the bounded scan. Following
 * the cursors finds every match the caller can see exactly once and none they cannot. SQLite and
 * Postgres, the index built with a bound of 5 matches per search.
 */
import t from "tap";
import { Effect } from "effect";
import { createFolder } from "../../core/files/CreateFolder.js";
import { NodeId, WorkspaceId } from "../../core/files/model/Ids.js";
import { searchNodes } from "../../core/files/SearchNodes.js";
import type { SqlNodeSearchIndexOptions } from "../../adapters/sql/files/SqlNodeSearchIndex.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { TapTest } from "../support/databases.js";
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

/** Pages that are full but the last: none shorter than `limit` while a cursor goes on. */
const noShortPage = (pages: ReadonlyArray<{ names: string[]; cursor: string | null }>, limit: number) =>
  pages.every((p) => p.cursor === null || p.names.length === limit);

/**
 * A drive of 32 "otter" matches with `searchIndex` options: "otter shared" (granted to ann), "otter
 * hidden", and 30 folders, every third under the shared one (the newest ones hidden); ann, bob
 * (no grant) and rob (a viewer of the root) are members. Answers the runtime, the names ann
 * sees, newest first, and a grant of the root.
 */
const otterDrive = async (t: TapTest, db: SqlDatabase, searchIndex: SqlNodeSearchIndexOptions) => {
  const env = filesRuntime(t, db, {}, { searchIndex });
  const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob", "rob"]);
  const shared = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: root, name: "otter shared" }));
  const hidden = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: root, name: "otter hidden" }));
  const index = (entry: { id: string; name: string }) =>
    env.run(Effect.flatMap(NodeSearchIndex, (r) => r.upsert({ workspaceId: "ws1", nodeId: entry.id, name: entry.name, contentType: null, versionId: null, seq: 1_000 })));
  await index(shared);
  await index(hidden);
  const visible = ["otter shared"];
  for (let i = 1; i <= 30; i++) {
    const node = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: i % 3 === 0 ? shared.id : hidden.id, name: `otter ${String(i).padStart(2, "0")}` }));
    await index(node);
    if (i % 3 === 0) visible.unshift(node.name);
  }
  const grant = (nodeId: string, userId: string) =>
    env.run(Effect.flatMap(NodesRepository, (r) => r.putGrant({ workspaceId: WorkspaceId.make("ws1"), nodeId: NodeId.make(nodeId), userId, role: "viewer", grantedBy: "adm", createdAt: new Date() })));
  await grant(shared.id, "ann");
  await grant(root, "rob");
  return { env, visible, grant: (userId: string) => grant(root, userId) };
};

/** ann's search gives exact pages: one page of 50 holds every visible match and ends the list; pages of 2 hold each once, none short but the last. */
const annGetsExactPages = async (t: TapTest, env: FilesEnv, visible: ReadonlyArray<string>, why: string) => {
  const first = await searchOnce(env, "ann", "otter", null, 50);
  t.same(first.data.map((n) => n.name), visible, `one page holds every visible match, though ${why}`);
  t.equal(first.next_cursor, null, "and ends the list");

  const pages = await allPages(env, "ann", "otter", 2);
  t.same(pages.flatMap((p) => p.names), visible, "every visible match exactly once, newest first, no hidden one");
  t.ok(noShortPage(pages, 2), "no page is short but the last");
};

t.test("a reader who sees part of the drive never gets a short page: full pages hold every visible match once and no hidden one, and one who sees none gets one empty last page", (t) =>
  forEachFilesDialect(t, "scoped search", async (t, db) => {
    const { env, visible } = await otterDrive(t, db, { maxExaminedMatches: 5 });
    await annGetsExactPages(t, env, visible, "more matches than the bound are hidden");

    const stranger = await allPages(env, "bob", "otter", 10);
    t.same(stranger, [{ names: [], cursor: null }], "a member who sees none of the matches gets one empty page that ends the list");
  }),
);

t.test("a reader who sees more nodes than maxScopedNodes never learns that hidden matches exist: the scan goes on past the bound until the page is full or the matches end", (t) =>
  forEachFilesDialect(t, "scoped search fallback", async (t, db) => {
    // ann sees 11 nodes, more than maxScopedNodes: the search among her nodes is out of reach.
    const { env, visible } = await otterDrive(t, db, { maxExaminedMatches: 5, maxScopedNodes: 2 });
    await annGetsExactPages(t, env, visible, "she sees more nodes than the search among them takes and more matches than the bound are hidden");
  }),
);

t.test("a reader who sees more nodes than the first walk looks at, and fewer than maxScopedNodes, still never gets a short page: a scan cut short by hidden matches gives way to the search among their nodes", (t) =>
  forEachFilesDialect(t, "scoped search after the scan", async (t, db) => {
    // ann sees 11 nodes: more than the first walk's 2, fewer than maxScopedNodes; the newest matches are hidden.
    const { env, visible } = await otterDrive(t, db, { maxExaminedMatches: 5, firstScopedNodes: 2, maxScopedNodes: 100 });
    await annGetsExactPages(t, env, visible, "the scan's bound was reached among hidden ones");
  }),
);

t.test("a reader with a grant on the root sees every node: their broad search examines at most the bound per request, and its cursor goes on where the scan stopped", (t) =>
  forEachFilesDialect(t, "whole-drive search", async (t, db) => {
    const { env } = await otterDrive(t, db, { maxExaminedMatches: 5 });

    const first = await searchOnce(env, "rob", "otter", null, 50);
    t.equal(first.data.length, 5, "the bound's 5 matches, all visible");
    t.not(first.next_cursor, null, "and a cursor to go on");

    const pages = await allPages(env, "rob", "otter", 7);
    const names = pages.flatMap((p) => p.names);
    t.equal(names.length, 32, "every match");
    t.equal(new Set(names).size, 32, "each once");
  }),
);

t.test("a cursor of either search goes on in the other: a reader whose grants change between pages finds the matches after it, each once", (t) =>
  forEachFilesDialect(t, "search cursor across ways", async (t, db) => {
    const { env, visible, grant: grantRoot } = await otterDrive(t, db, { maxExaminedMatches: 5 });
    const everything = (await allPages(env, "rob", "otter", 100)).flatMap((p) => p.names);

    const scoped = await searchOnce(env, "ann", "otter", null, 2);
    t.same(scoped.data.map((n) => n.name), visible.slice(0, 2), "a page of the search among ann's nodes");
    await grantRoot("ann");
    const rest: string[] = [];
    let cursor = scoped.next_cursor;
    for (let i = 0; cursor !== null && i < 100; i++) {
      const page = await searchOnce(env, "ann", "otter", cursor, 7);
      rest.push(...page.data.map((n) => n.name));
      cursor = page.next_cursor;
    }
    t.same(rest, everything.slice(everything.indexOf(visible[1]!) + 1), "with a grant on the root now, the bounded scan goes on after the scoped page's cursor");
  }),
);
