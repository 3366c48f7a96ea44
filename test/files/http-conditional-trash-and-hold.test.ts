/**
 * docs/conventions.md, Optimistic concurrency: a received If-Match is evaluated on every change of
 * a versioned node. DELETE /v1/nodes/:id and PUT /v1/nodes/:id/legal-hold with a stale If-Match
 * answer 412 version_mismatch with the current node (the view GET answers) and change nothing (no
 * trash, no change record, no hold, no audit entry); with the current version — a bare number, or
 * the metadata ETag "<version>.<acl epoch>" as GET gave it — they make the change; without the
 * header they behave as before. (test/koa/openapi.test.ts checks the OpenAPI of every such route.) On Postgres two
 * holds, and two deletes, with the same If-Match race on real connections: one wins, the other 412.
 */
import t from "tap";
import { startFilesServer, eachDialect } from "./http-support.js";

t.test("a node's trash and legal hold evaluate If-Match", (t) =>
  eachDialect(t, "conditional trash and hold", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const db = server.core.database.db;
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Case files", kind: "folder" } });
    const id = String(folder.body.id);
    await call("/v1/nodes", { user: ann, body: { parent_id: id, name: "Inner", kind: "folder" } });
    const audited = async () => (await db.selectFrom("fs_audit").select("action").where("workspace_id", "=", ws.id).where("target_id", "=", id).execute()).length;
    const trashRecords = async () =>
      (await db.selectFrom("fs_changes").select("seq").where("workspace_id", "=", ws.id).where("node_id", "=", id).where("type", "=", "node.trashed").execute()).length;
    const hold = (body: { hold: boolean; reason: string }, headers: Record<string, string> = {}) =>
      call(`/v1/nodes/${id}/legal-hold`, { user: ann, method: "PUT", body, headers });

    // Legal hold.
    const staleHold = await hold({ hold: true, reason: "case 1" }, { "If-Match": '"99"' });
    t.equal(staleHold.status, 412, "a stale If-Match on the hold is refused");
    t.equal(staleHold.body.code, "version_mismatch");
    t.match(staleHold.body.current, { id, version: 1, legal_hold: false, name: "Case files" }, "412 carries the current node");
    const read = await call(`/v1/nodes/${id}`, { user: ann });
    t.same(Object.keys(staleHold.body.current as object).sort(), Object.keys(read.body).sort(), "`current` is the view GET answers");
    t.match(read.body, { version: 1, legal_hold: false }, "no hold was placed");
    t.equal(await audited(), 0, "and none was audited");

    const held = await hold({ hold: true, reason: "case 1" }, { "If-Match": String(read.headers.get("etag")) });
    t.equal(held.status, 200, "the metadata ETag as If-Match places the hold");
    t.match(held.body, { version: 2, legal_hold: true });
    const staleRelease = await hold({ hold: false, reason: "case closed" }, { "If-Match": "1" });
    t.equal(staleRelease.status, 412, "a release based on the version before the hold is stale");
    t.match(staleRelease.body.current, { version: 2, legal_hold: true });
    const heldAgain = await hold({ hold: true, reason: "case 1" }, { "If-Match": "1" });
    t.equal(heldAgain.status, 412, "a repeated hold with a stale If-Match is stale too");
    t.equal(await audited(), 1, "one audited hold");
    const released = await hold({ hold: false, reason: "case closed" });
    t.match(released, { status: 200, body: { version: 3, legal_hold: false } }, "without If-Match the release is unconditional");
    t.match(await hold({ hold: false, reason: "case closed" }), { status: 200, body: { version: 3 } }, "and releasing again changes nothing");
    t.match(await hold({ hold: true, reason: "x" }, { "If-Match": "*" }), { status: 400, body: { code: "invalid_if_match" } });

    // Trash.
    const staleTrash = await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE", headers: { "If-Match": '"99"' } });
    t.equal(staleTrash.status, 412, "a stale If-Match on DELETE is refused");
    t.equal(staleTrash.body.code, "version_mismatch");
    t.match(staleTrash.body.current, { id, version: 3, trashed_at: null }, "412 carries the current node");
    t.match(await call(`/v1/nodes/${id}`, { user: ann }), { status: 200, body: { version: 3, trashed_at: null } }, "the node is not in the trash");
    t.equal(await trashRecords(), 0, "no tombstone was recorded");
    const trashed = await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE", headers: { "If-Match": '"3"' } });
    t.equal(trashed.status, 204, "the current version trashes the node");
    t.match(await call(`/v1/nodes/${id}`, { user: ann }), { body: { version: 4, trashed_at: String } });
    t.equal(await trashRecords(), 1, "one tombstone");

    const restored = await call(`/v1/nodes/${id}/restore`, { user: ann, method: "POST" });
    t.equal(restored.status, 200);
    const plain = await call(`/v1/nodes/${id}`, { user: ann, method: "DELETE" });
    t.equal(plain.status, 204, "without If-Match the delete is unconditional");
    t.equal(await trashRecords(), 2);
  }),
);

t.test("two holds, and two deletes, of a node with the same If-Match on real connections: one wins, the other is 412 [postgres]", async (t) => {
  const { server, call, user, workspace } = await startFilesServer(t, "postgres");
  const ann = await user();
  const ws = await workspace(ann);
  const db = server.core.database.db;
  for (let round = 0; round < 6; round++) {
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: `Race ${round}`, kind: "folder" } });
    const id = String(folder.body.id);
    const holds = await Promise.all(
      ["first", "second"].map((reason) => call(`/v1/nodes/${id}/legal-hold`, { user: ann, method: "PUT", body: { hold: true, reason }, headers: { "If-Match": "1" } })),
    );
    t.same(holds.map((h) => h.status).sort(), [200, 412], `round ${round}: one hold wins, the other is 412`);
    t.match(holds.find((h) => h.status === 412)?.body, { code: "version_mismatch", current: { version: 2, legal_hold: true } });
    const audits = await db.selectFrom("fs_audit").select("action").where("target_id", "=", id).execute();
    t.equal(audits.length, 1, "exactly one hold audited");

    const deletes = await Promise.all([0, 1].map(() => call(`/v1/nodes/${id}`, { user: ann, method: "DELETE", headers: { "If-Match": "2" } })));
    t.same(deletes.map((d) => d.status).sort(), [204, 412], `round ${round}: one delete wins, the other is 412`);
    t.match(deletes.find((d) => d.status === 412)?.body, { code: "version_mismatch", current: { version: 3, trashed_at: String } });
    const tombstones = await db.selectFrom("fs_changes").select("seq").where("node_id", "=", id).where("type", "=", "node.trashed").execute();
    t.equal(tombstones.length, 1, "exactly one tombstone");
  }
});
