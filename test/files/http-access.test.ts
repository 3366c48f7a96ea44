/**
 * Who reaches what, over HTTP and ws on the reference server (SQLite and Postgres): another
 * workspace's node, upload, version, drive, feed and channel answer 404 (or a refused
 * subscription) on every route; a member sees only what they are granted and a revocation is
 * visible in the next request; share links reach only their subtree; the change feed answers
 * 410 cursor_expired with a restart cursor; security operators alone list, sample (audited) and
 * release quarantined versions.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { hostSecret } from "../hosts/support.js";
import { dialects, type Dialect } from "../support/databases.js";
import { connectRealtime, startFilesServer, type Json, eachDialect } from "./http-support.js";
import { bytesOf, sha256 } from "./support.js";

const part = 8 * 1024 * 1024;
const operatorId = randomUUID();

/**
 * One reference server per dialect (with a security operator), shared by every claim below (each
 * makes its own users and workspaces), both started at once; closed when the file's tests end.
 */
const servers = new Map(dialects.map((dialect) => [dialect, startFilesServer(t, dialect, { FILES_SECURITY_OPERATORS: operatorId })] as const));
const serverOf = (dialect: Dialect) => servers.get(dialect)!;

t.test("another workspace's objects answer 404 on every route, and its drive channel is refused", { jobs: 2 }, (t) =>
  eachDialect(t, "isolation", async (t, dialect) => {
    const { server, call, user, workspace, upload } = await serverOf(dialect);
    const ann = await user();
    const eve = await user();
    const ws = await workspace(ann);
    await workspace(eve);
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Private", kind: "folder" } });
    const folderId = String(folder.body.id);
    const version = await upload(ann, folderId, "secret.txt", bytesOf("secret"), part);
    const fileId = String(version.body.node_id);
    const session = await call("/v1/uploads", {
      user: ann,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: folderId, name: "open.txt", size_bytes: 4, sha256: sha256("open") },
    });
    const uploadId = String(session.body.id);
    const link = await call(`/v1/nodes/${folderId}/share-links`, { user: ann, body: {} });

    const attempts: Array<[string, { method?: string; body?: unknown; headers?: Record<string, string> }]> = [
      [`/v1/workspaces/${ws.id}/drive`, {}],
      [`/v1/workspaces/${ws.id}/drive/quota`, { method: "PUT", body: { quota_bytes: 1 } }],
      [`/v1/nodes/${folderId}`, {}],
      [`/v1/nodes/${folderId}/children`, {}],
      ["/v1/nodes", { body: { parent_id: folderId, name: "x", kind: "folder" } }],
      [`/v1/nodes/${folderId}`, { method: "PATCH", body: { name: "x" }, headers: { "If-Match": "1" } }],
      [`/v1/nodes/${folderId}`, { method: "DELETE" }],
      [`/v1/nodes/${folderId}/restore`, { method: "POST" }],
      ["/v1/uploads", { body: { parent_id: folderId, name: "y", size_bytes: 1, sha256: sha256("y") }, headers: { "Idempotency-Key": randomUUID() } }],
      [`/v1/uploads/${uploadId}`, {}],
      [`/v1/uploads/${uploadId}/complete`, { body: { sha256: sha256("open") } }],
      [`/v1/uploads/${uploadId}`, { method: "DELETE" }],
      [`/v1/nodes/${fileId}/versions`, {}],
      [`/v1/nodes/${fileId}/versions/${String(version.body.id)}/restore`, { method: "POST" }],
      [`/v1/nodes/${fileId}/downloads`, { body: {} }],
      [`/v1/nodes/${folderId}/permissions`, {}],
      [`/v1/nodes/${folderId}/permissions`, { body: { user_id: eve.id, role: "owner" } }],
      [`/v1/nodes/${folderId}/permissions/${ann.id}`, { method: "DELETE" }],
      [`/v1/nodes/${folderId}/share-links`, {}],
      [`/v1/nodes/${folderId}/share-links`, { body: {} }],
      [`/v1/nodes/${folderId}/share-links/${String(link.body.id)}`, { method: "DELETE" }],
      [`/v1/changes?workspace_id=${ws.id}`, {}],
      [`/v1/workspaces/${ws.id}/trash`, {}],
      [`/v1/nodes/${folderId}/legal-hold`, { method: "PUT", body: { hold: true, reason: "x" } }],
    ];
    for (const [path, options] of attempts) {
      const answer = await call(path, { user: eve, ...options });
      t.match(answer, { status: 404, body: { code: "not_found" } }, `${options.method ?? (options.body === undefined ? "GET" : "POST")} ${path.replace(/[0-9a-f-]{36}/g, ":id")} is 404 for another workspace`);
    }
    t.equal((await call(`/v1/nodes/${folderId}`, { user: ann })).status, 200, "nothing was changed by those attempts");

    const outsider = await connectRealtime(server.url, eve, t);
    for (const channel of [`drive:${ws.id}:${eve.id}`, `drive:${ws.id}:${ann.id}`]) {
      outsider.send({ type: "subscribe", channel });
      t.match(await outsider.next((m) => m.channel === channel, 3000), { type: "error" }, "another workspace's drive channel is refused");
    }
  }),
);

t.test("members see what they are granted; a revocation is visible in the next request; share links reach only their subtree", { jobs: 2 }, (t) =>
  eachDialect(t, "access", async (t, dialect) => {
    const { call, user, workspace, upload, published } = await serverOf(dialect);
    const ann = await user();
    const bob = await user();
    const carl = await user();
    const ws = await workspace(ann, [bob]);
    const shared = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const hidden = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Hidden", kind: "folder" } });
    const sharedId = String(shared.body.id);
    const file = await upload(ann, sharedId, "plan.txt", bytesOf("the plan"), part);
    const fileId = String(file.body.node_id);
    await published(ann, fileId);
    const secret = await upload(ann, String(hidden.body.id), "secret.txt", bytesOf("secret"), part);

    const rootList = await call(`/v1/nodes/${ws.root}/children`, { user: bob });
    t.match(rootList, { status: 200, body: { data: [], next_cursor: null } }, "a member without grants lists the root and sees nothing");
    t.match(await call(`/v1/nodes/${fileId}`, { user: bob }), { status: 404 }, "an ungranted node does not exist for them");
    t.match(await call(`/v1/nodes/${sharedId}/permissions`, { user: ann, body: { user_id: carl.id, role: "viewer" } }), { status: 422 }, "only members are granted");
    t.equal((await call(`/v1/nodes/${sharedId}/permissions`, { user: ann, body: { user_id: bob.id, role: "viewer" } })).status, 200);
    const listed = await call(`/v1/nodes/${ws.root}/children`, { user: bob });
    t.same((listed.body.data as Json[]).map((n) => n.name), ["Shared"], "the grant shows exactly the granted folder");
    t.match(await call(`/v1/nodes/${fileId}/downloads`, { user: bob, body: {} }), { status: 201 }, "a viewer downloads (inherited)");
    t.match(await call(`/v1/nodes/${sharedId}/permissions`, { user: bob }), { status: 403 }, "a viewer sees the folder but not its ACL");
    t.match(await call(`/v1/nodes/${sharedId}/share-links`, { user: bob, body: {} }), { status: 403 }, "nor makes links");
    const feed = await call(`/v1/changes?workspace_id=${ws.id}`, { user: bob });
    t.notOk((feed.body.data as Json[]).some((c) => c.node_id === secret.body.node_id || c.node_id === hidden.body.id), "the feed never shows what the member may not see");
    t.equal((await call(`/v1/nodes/${sharedId}/permissions/${bob.id}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await call(`/v1/nodes/${fileId}`, { user: bob }), { status: 404 }, "the revocation is visible in the next request");

    // Share links.
    t.match(await call(`/v1/nodes/${sharedId}/share-links`, { user: ann, body: { expires_at: "2001-01-01T00:00:00Z" } }), { status: 422 }, "expiry must be in the future");
    const viewOnly = await call(`/v1/nodes/${sharedId}/share-links`, { user: ann, body: {} });
    const token = String(viewOnly.body.token);
    t.match(await call("/v1/file-shares/access", { headers: { "X-Share-Token": token } }), { status: 200, body: { id: sharedId } });
    t.match(await call(`/v1/file-shares/access?node_id=${String(secret.body.node_id)}`, { headers: { "X-Share-Token": token } }), { status: 404 }, "nothing outside the shared subtree");
    t.match(await call("/v1/file-shares/access/downloads", { body: { node_id: fileId }, headers: { "X-Share-Token": token } }), { status: 403 }, "a link without allow_download gives no download");
    const children = await call("/v1/file-shares/access/children", { headers: { "X-Share-Token": token } });
    t.match(children, { status: 200, body: { data: [{ id: fileId, name: "plan.txt" }], next_cursor: null } }, "a recipient lists the shared folder");
    t.match(await call(`/v1/file-shares/access/children?parent_id=${String(hidden.body.id)}`, { headers: { "X-Share-Token": token } }), { status: 404 }, "but no folder outside it");
    t.match(await call(`/v1/file-shares/access/children?parent_id=${fileId}`, { headers: { "X-Share-Token": token } }), { status: 409, body: { code: "not_a_folder" } });
    t.match(await call("/v1/file-shares/access"), { status: 404 }, "no token: 404");
    t.match(await call("/v1/file-shares/access", { headers: { "X-Share-Token": "not-a-token" } }), { status: 404 }, "an unknown token: 404");
  }),
);

t.test("the change feed answers 410 cursor_expired with a restart cursor; invalid cursors are 400", { jobs: 2 }, (t) =>
  eachDialect(t, "cursor window", async (t, dialect) => {
    const { server, call, user, workspace } = await serverOf(dialect);
    const ann = await user();
    const ws = await workspace(ann);
    for (const name of ["a", "b", "c"]) await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name, kind: "folder" } });
    const first = await call(`/v1/changes?workspace_id=${ws.id}&limit=1`, { user: ann });
    t.match(first, { status: 200, body: { has_more: true } });
    t.equal((first.body.data as Json[]).length, 1);
    // The retention window moved past the client's cursor (as the purge job will).
    await server.core.database.db.updateTable("fs_drives").set({ pruned_through_seq: 2 }).where("workspace_id", "=", ws.id).execute();
    const expired = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(first.body.next_cursor)}`, { user: ann });
    t.match(expired, { status: 410, body: { code: "cursor_expired" } });
    t.type(expired.body.restart_cursor, "string", "with a restart point");
    const restarted = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(expired.body.restart_cursor)}`, { user: ann });
    t.match(restarted, { status: 200, body: { data: [], has_more: false } }, "the restart point is the end of the log");
    const other = await workspace(ann);
    t.match(
      await call(`/v1/changes?workspace_id=${other.id}&cursor=${String(expired.body.restart_cursor)}`, { user: ann }),
      { status: 400, body: { code: "invalid_cursor" } },
      "the restart point is bound to this feed like next_cursor: another workspace's feed refuses it",
    );
    t.match(await call(`/v1/changes?workspace_id=${ws.id}&cursor=nope`, { user: ann }), { status: 400, body: { code: "invalid_cursor" } });
    t.match(await call("/v1/changes", { user: ann }), { status: 400 }, "workspace_id is required");
  }),
);

t.test("security operators alone review quarantine: list, audited sample, release", { jobs: 2 }, (t) =>
  eachDialect(t, "security review", async (t, dialect) => {
    const { server, call, user, workspace, upload, scanned } = await serverOf(dialect);
    const ann = await user();
    const op = { id: operatorId, token: await mintToken({ secret: hostSecret, userId: operatorId, ttlSeconds: 600 }) };
    const ws = await workspace(ann);
    const infected = await upload(ann, ws.root, "eicar.txt", bytesOf(eicarTestString), part);
    const nodeId = String(infected.body.node_id);
    const versionId = String(infected.body.id);
    t.equal((await scanned(ann, nodeId, versionId)).status, "blocked");

    t.match(await call("/v1/operator/file-versions", { user: ann }), { status: 403 }, "a member is no security operator");
    // Spec Endpoints rule 1: a non-operator learns nothing about a version id (see the test below).
    t.match(await call(`/v1/operator/file-versions/${versionId}/samples`, { user: ann, body: { reason: "curious" } }), { status: 404 });
    const queue = await call("/v1/operator/file-versions", { user: op });
    t.match(queue, { status: 200 });
    t.ok((queue.body.data as Json[]).some((v) => v.id === versionId && v.status === "blocked"), "the blocked version is listed");
    t.match(await call(`/v1/operator/file-versions/${versionId}/samples`, { user: op, body: { reason: " " } }), { status: 422 }, "a reason is required");
    t.match(await call(`/v1/operator/file-versions/${randomUUID()}/samples`, { user: op, body: { reason: "check" } }), { status: 404 });
    const sample = await call(`/v1/operator/file-versions/${versionId}/samples`, { user: op, body: { reason: "false positive?" } });
    t.match(sample, { status: 201, body: { version: { id: versionId, status: "blocked" } } });
    const got = await fetch(`${server.url}${String(sample.body.url)}`);
    t.equal(got.headers.get("content-type"), "application/octet-stream", "samples are never rendered");
    const audit = await server.core.database.db.selectFrom("fs_audit").select(["action", "reason"]).where("target_id", "=", versionId).execute();
    t.same(audit, [{ action: "version.sample_access", reason: "false positive?" }], "the sample access is audited with its reason");
    const released = await call(`/v1/operator/file-versions/${versionId}/review`, { user: op, body: { decision: "release", reason: "test file" } });
    t.match(released, { status: 200, body: { version_id: versionId, status: "published" } });
    t.match(await call(`/v1/nodes/${nodeId}/downloads`, { user: ann, body: {} }), { status: 201 }, "a released version downloads");
  }),
);

/**
 * Spec (Endpoints, rule 1): "An unknown object returns 404 where 403 would leak its existence".
 * The operator routes that name a version answer a non-operator the same 404 for an existing
 * version (of their own or another workspace) as for an unknown id.
 */
t.test("operator version routes: a non-operator gets the same 404 for an existing and an unknown version", { jobs: 2 }, (t) =>
  eachDialect(t, "operator probe", async (t, dialect) => {
    const { call, user, workspace, upload } = await serverOf(dialect);
    const ann = await user();
    const eve = await user();
    const ws = await workspace(ann);
    await workspace(eve);
    const version = await upload(ann, ws.root, "a.txt", bytesOf("quarantined bytes"), part);
    const existing = String(version.body.id);
    const unknown = randomUUID();
    const probes = [
      (id: string) => `/v1/operator/file-versions/${id}/review`,
      (id: string) => `/v1/operator/file-versions/${id}/samples`,
    ];
    for (const prober of [ann, eve]) {
      for (const path of probes) {
        const body = path(existing).endsWith("review") ? { decision: "block", reason: "probe" } : { reason: "probe" };
        const onExisting = await call(path(existing), { user: prober, body });
        const onUnknown = await call(path(unknown), { user: prober, body });
        t.equal(onExisting.status, 404, `${path("<existing>")}: 404 for an existing version`);
        t.equal(onUnknown.status, 404, `${path("<unknown>")}: 404 for an unknown one`);
        t.same([onExisting.body.code, onExisting.body.title], [onUnknown.body.code, onUnknown.body.title], "the same answer");
      }
    }
  }),
);

/*
 * Spec (Authentication 5): "An authorization epoch is carried in caches and tokens; revocation
 * bumps the epoch"; (Versioning) "Metadata cache keys include tenant, node version and ACL
 * epoch". A revocation and a downgrade of a grant both bump the workspace's ACL epoch, and the
 * node's metadata ETag carries it, so a metadata answer cached before no longer matches; an
 * upgrade takes nothing away and leaves the epoch alone.
 */
t.test("the ACL epoch: a revocation and a downgrade bump it, and the node's metadata ETag changes with it", { jobs: 2 }, (t) =>
  eachDialect(t, "acl epoch", async (t, dialect) => {
    const { server, call, user, workspace, aclEpoch } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const folderId = String(folder.body.id);
    const doc = await call("/v1/nodes", { user: ann, body: { parent_id: folderId, name: "Doc", kind: "folder" } });
    const docId = String(doc.body.id);
    const epoch = () => aclEpoch(ws.id);
    const etagOf = async (nodeId: string) => {
      const answer = await call(`/v1/nodes/${nodeId}`, { user: ann });
      t.equal(answer.status, 200);
      return answer.headers.get("etag");
    };

    t.match(await call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: ben.id, role: "editor" } }), { status: 200 });
    const start = await epoch();
    const cached = await etagOf(docId);
    t.match(await call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: ben.id, role: "owner" } }), { status: 200 });
    t.equal(await epoch(), start, "an upgrade takes nothing away: the epoch stays");
    t.equal(await etagOf(docId), cached, "and the metadata ETag with it");

    t.match(await call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } }), { status: 200 });
    t.equal(await epoch(), start + 1, "a downgrade bumps the epoch");
    const afterDowngrade = await etagOf(docId);
    t.not(afterDowngrade, cached, "and the node's metadata ETag changes (a node below the changed grant)");

    t.equal((await call(`/v1/nodes/${folderId}/permissions/${ben.id}`, { user: ann, method: "DELETE" })).status, 204);
    t.equal(await epoch(), start + 2, "a revocation bumps the epoch");
    const afterRevocation = await etagOf(docId);
    t.not(afterRevocation, afterDowngrade, "and the node's metadata ETag changes again");
    t.not(afterRevocation, cached);

    // The ETag a GET answers is what a client sends back as If-Match: its version part is the condition.
    const renamed = await call(`/v1/nodes/${docId}`, { user: ann, method: "PATCH", body: { name: "Doc 2" }, headers: { "If-Match": String(afterRevocation) } });
    t.match(renamed, { status: 200, body: { name: "Doc 2" } }, "the metadata ETag is accepted as If-Match");
    const stale = await call(`/v1/nodes/${docId}`, { user: ann, method: "PATCH", body: { name: "Doc 3" }, headers: { "If-Match": String(afterRevocation) } });
    t.match(stale, { status: 412, body: { code: "version_mismatch" } }, "and a stale one is refused by its version");
  }),
);
