/**
 * Spec (Endpoints, rule 1): "List endpoints use opaque keyset cursors"; conventions (Lists): every
 * list answers `{"data": [...], "next_cursor": "<opaque>"}`, `limit` at most 200, and a cursor the
 * server cannot read is 400 invalid_cursor. A node's share links (newest first) and its direct
 * grants (by user id) are lists like any other: pages that follow their cursor to the end, each
 * row once — SQLite and Postgres, through the reference server.
 */
import t from "tap";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("a node's share links and its grants are keyset pages: data and next_cursor, followed to the end, each row once", (t) =>
  eachDialect(t, "node lists", async (t, dialect) => {
    const { call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const members = [await user(), await user(), await user()];
    const ws = await workspace(ann, members);
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const folderId = String(folder.body.id);
    const links: string[] = [];
    for (let i = 0; i < 3; i++) {
      const link = await call(`/v1/nodes/${folderId}/share-links`, { user: ann, body: { allow_download: false } });
      t.equal(link.status, 201);
      links.push(String(link.body.id));
    }
    for (const member of members) t.equal((await call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: member.id, role: "viewer" } })).status, 200);

    /** Every page of `path` at `limit` 2: the ids in order and the pages' sizes. */
    const follow = async (path: string, idOf: (row: Json) => string) => {
      const ids: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const answer = await call(`${path}?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { user: ann });
        t.equal(answer.status, 200);
        const rows = answer.body.data as Json[];
        ids.push(...rows.map(idOf));
        sizes.push(rows.length);
        t.ok("next_cursor" in answer.body, "the page says where the next one starts");
        cursor = (answer.body.next_cursor as string | null | undefined) ?? null;
        if (cursor === null) break;
      }
      return { ids, sizes };
    };
    const linkPages = await follow(`/v1/nodes/${folderId}/share-links`, (row) => String(row.id));
    t.same(linkPages.sizes, [2, 1], "share links: a page of 2, then the last");
    t.same(linkPages.ids, [...links].reverse(), "newest first, each once");
    const grantPages = await follow(`/v1/nodes/${folderId}/permissions`, (row) => String(row.user_id));
    const granted = [ann.id, ...members.map((m) => m.id)].sort();
    t.same(grantPages.ids, granted, "grants: by user id, each once");
    t.same(grantPages.sizes, [2, 2], "in pages of 2");
    for (const path of [`/v1/nodes/${folderId}/share-links`, `/v1/nodes/${folderId}/permissions`]) {
      t.match(await call(`${path}?cursor=not-a-cursor`, { user: ann }), { status: 400, body: { code: "invalid_cursor" } }, `${path.endsWith("share-links") ? "share links" : "grants"}: an unreadable cursor is 400`);
    }
  }),
);
