/**
 * docs/conventions.md, Optimistic concurrency: a received If-Match is evaluated on every change of
 * a versioned node, its restore too. POST /v1/nodes/:id/restore with a stale If-Match answers 412
 * version_mismatch with the current node (the view GET answers) and restores nothing (no change
 * record, the subtree stays in the trash); with the current version — a bare number, or the
 * metadata ETag GET gave — it restores; without the header it behaves as before. (test/koa/openapi.test.ts checks the OpenAPI of every such route.) On Postgres two restores with the same If-Match race on
 * real connections: one wins, the other is 412, and one restoration is recorded.
 */
import t from "tap";
import { startFilesServer, eachDialect } from "./http-support.js";

t.test("a node's restore evaluates If-Match", (t) =>
  eachDialect(t, "conditional restore", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const db = server.core.database.db;
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Archive", kind: "folder" } });
    const id = String(folder.body.id);
    const inner = await call("/v1/nodes", { user: ann, body: { parent_id: id, name: "Inner", kind: "folder" } });
    const innerId = String(inner.body.id);
    const restoreRecords = async () =>
      (await db.selectFrom("fs_changes").select("seq").where("workspace_id", "=", ws.id).where("node_id", "=", id).where("type", "=", "node.restored").execute()).length;
    const restore = (headers: Record<string, string> = {}) => call(`/v1/nodes/${id}/restore`, { user: ann, method: "POST", headers });

    t.equal((await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE" })).status, 204);
    const trashed = await call(`/v1/nodes/${id}`, { user: ann });
    t.match(trashed.body, { version: 2, trashed_at: String });

    const stale = await restore({ "If-Match": '"1"' });
    t.equal(stale.status, 412, "a stale If-Match on restore is refused");
    t.equal(stale.body.code, "version_mismatch");
    t.match(stale.body.current, { id, version: 2, trashed_at: String, name: "Archive" }, "412 carries the current node");
    t.same(Object.keys(stale.body.current as object).sort(), Object.keys(trashed.body).sort(), "`current` is the view GET answers");
    t.match((await call(`/v1/nodes/${id}`, { user: ann })).body, { version: 2, trashed_at: String }, "the node stays in the trash");
    t.match((await call(`/v1/nodes/${innerId}`, { user: ann })).body, { trashed_at: String }, "and so does its subtree");
    t.equal(await restoreRecords(), 0, "no restoration was recorded");

    const restored = await restore({ "If-Match": String(trashed.headers.get("etag")) });
    t.equal(restored.status, 200, "the metadata ETag as If-Match restores the node");
    t.match(restored.body, { id, version: 3, trashed_at: null });
    t.match((await call(`/v1/nodes/${innerId}`, { user: ann })).body, { trashed_at: null }, "with its subtree");
    t.equal(await restoreRecords(), 1, "one restoration recorded");

    t.equal((await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE" })).status, 204);
    const bare = await restore({ "If-Match": "4" });
    t.match(bare, { status: 200, body: { version: 5, trashed_at: null } }, "the current version (bare) restores the node");
    t.match(await restore({ "If-Match": "*" }), { status: 400, body: { code: "invalid_if_match" } }, "an If-Match that names no version is 400");

    t.equal((await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE" })).status, 204);
    const plain = await restore();
    t.match(plain, { status: 200, body: { version: 7, trashed_at: null } }, "without If-Match the restore is unconditional");
    t.equal(await restoreRecords(), 3, "one restoration fact per accepted restoration");
  }),
);

t.test("two restores of a node with the same If-Match on real connections: one wins, the other is 412 [postgres]", async (t) => {
  const { server, call, user, workspace } = await startFilesServer(t, "postgres");
  const ann = await user();
  const ws = await workspace(ann);
  const db = server.core.database.db;
  for (let round = 0; round < 6; round++) {
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: `Race ${round}`, kind: "folder" } });
    const id = String(folder.body.id);
    t.equal((await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE" })).status, 204);
    const restores = await Promise.all([0, 1].map(() => call(`/v1/nodes/${id}/restore`, { user: ann, method: "POST", headers: { "If-Match": "2" } })));
    t.same(restores.map((r) => r.status).sort(), [200, 412], `round ${round}: one restore wins, the other is 412`);
    t.match(restores.find((r) => r.status === 412)?.body, { code: "version_mismatch", current: { version: 3, trashed_at: null } });
    const records = await db.selectFrom("fs_changes").select("seq").where("node_id", "=", id).where("type", "=", "node.restored").execute();
    t.equal(records.length, 1, "exactly one restoration recorded");
  }
});
