/**
 * Spec (Authentication 1): an External recipient reaches "only the token-scoped shared object";
 * a Workspace admin holds "membership, policy, quota, audit". What a share link answers its
 * recipient says nothing of the workspace around the shared node: no workspace id, no id of the
 * shared node's parent (outside the share; the shared node is the recipient's top), no legal hold
 * (an admin's policy, audited — a recipient must not learn that a file is held), no member's user
 * id on a version. SQLite and Postgres, through the reference server.
 */
import t from "tap";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("a share recipient sees the shared nodes without the workspace, the shared node's parent, legal holds or members' ids", (t) =>
  eachDialect(t, "recipient view", async (t, dialect) => {
    const { call, user, workspace, upload, published } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const outer = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Legal", kind: "folder" } });
    const shared = await call("/v1/nodes", { user: ann, body: { parent_id: String(outer.body.id), name: "For the client", kind: "folder" } });
    const sharedId = String(shared.body.id);
    const uploaded = await upload(ann, sharedId, "contract.txt", new TextEncoder().encode("terms"), defaultFilesSettings.partSizeBytes);
    const fileId = String(uploaded.body.node_id);
    await published(ann, fileId);
    t.equal((await call(`/v1/nodes/${fileId}/legal-hold`, { user: ann, method: "PUT", body: { hold: true, reason: "litigation" } })).status, 200, "the admin holds the file");
    t.match(await call(`/v1/nodes/${fileId}`, { user: ann }), { status: 200, body: { legal_hold: true } }, "members see the hold");
    const link = await call(`/v1/nodes/${sharedId}/share-links`, { user: ann, body: { allow_download: true } });
    const token = { "X-Share-Token": String(link.body.token) };

    const top = await call("/v1/file-shares/access", { headers: token });
    t.match(top, { status: 200, body: { id: sharedId, name: "For the client", parent_id: null } }, "the shared node is the recipient's top: no parent outside the share");
    const file = await call(`/v1/file-shares/access?node_id=${fileId}`, { headers: token });
    t.match(file, { status: 200, body: { id: fileId, parent_id: sharedId } }, "a node inside keeps its parent inside the share");
    const children = await call("/v1/file-shares/access/children", { headers: token });
    t.equal(children.status, 200);
    const download = await call("/v1/file-shares/access/downloads", { headers: token, body: { node_id: fileId } });
    t.equal(download.status, 201);
    const shown: ReadonlyArray<readonly [string, Json]> = [
      ["the shared node", top.body],
      ["a node inside", file.body],
      ["a listed child", (children.body.data as Json[])[0]!],
    ];
    for (const [label, node] of shown) {
      t.notOk("legal_hold" in node, `${label}: no legal hold`);
      t.notOk("workspace_id" in node, `${label}: no workspace id`);
    }
    const version = download.body.version as Json;
    t.match(version, { node_id: fileId }, "the download names the version");
    t.notOk("created_by" in version, "without the member who uploaded it");
    t.notOk(JSON.stringify([top.body, file.body, children.body, download.body]).includes(ws.id), "the workspace id appears nowhere");
    t.notOk(JSON.stringify([top.body, file.body, children.body, download.body]).includes(String(outer.body.id)), "nor the folder around the share");
  }),
);
