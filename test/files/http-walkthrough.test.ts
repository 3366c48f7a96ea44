/**
 * The file storage walk-through over HTTP and ws on the reference server (SQLite and Postgres),
 * as the README's file storage walk-through shows it: the drive (quota from FILES_DEFAULT_QUOTA_BYTES), a
 * folder, an upload in two parts straight to storage (Idempotency-Key required, replayed), resume,
 * complete (202, repeated with the same checksum: the same version), the scan publishing it, a
 * download grant serving the bytes with Range, a share link, a move with If-Match, trash and
 * restore, the change feed, and the member's `drive:<workspace id>:<user id>` channel announcing changes.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { filesRoutes } from "../../adapters/koa/files/index.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { connectRealtime, startFilesServer, type Json, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";

const partSize = defaultFilesSettings.partSizeBytes;

t.test("a file from folder to download over HTTP, with a share link, a move, the change feed and the live drive channel", (t) =>
  eachDialect(t, "walk-through", async (t, dialect) => {
    const quota = 64 * 1024 * 1024;
    const { server, call, user, workspace, putPart, published, logText } = await startFilesServer(t, dialect, { FILES_DEFAULT_QUOTA_BYTES: String(quota) });
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);

    const drive = await call(`/v1/workspaces/${ws.id}/drive`, { user: ann });
    t.match(drive, { status: 200, body: { root_node_id: ws.root, quota_bytes: quota, used_bytes: 0, reserved_bytes: 0 } }, "a new drive has the configured default quota");

    const live = await connectRealtime(server.url, ann, t);
    const channel = `drive:${ws.id}:${ann.id}`;
    live.send({ type: "subscribe", channel });
    t.match(await live.next((m) => m.type === "subscribed" || m.type === "error", 3000), { type: "subscribed", channel }, "a member subscribes to their drive channel");

    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Reports", kind: "folder" } });
    t.match(folder, { status: 201, body: { name: "Reports", kind: "folder", parent_id: ws.root, version: 1 } });
    const folderId = String(folder.body.id);
    const announced = await live.next((m) => m.type === "event" && m.channel === channel, 5000);
    t.match(announced, { type: "event", event: { type: "DriveChanged", tenant_id: ws.id, data: { seq: 1 } } }, "the drive channel announces the new change");

    // Two parts: 8 MiB and the rest.
    const bytes = new Uint8Array(partSize + 37).map((_, i) => 97 + (i % 26));
    const parts = [sha256(bytes.subarray(0, partSize)), sha256(bytes.subarray(partSize))];
    const request = { parent_id: folderId, name: "q3.txt", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: parts };
    t.match(await call("/v1/uploads", { user: ann, body: request }), { status: 400, body: { code: "idempotency_key_required" } }, "the spec requires an Idempotency-Key");
    const key = randomUUID();
    const session = await call("/v1/uploads", { user: ann, body: request, headers: { "Idempotency-Key": key } });
    t.equal(session.status, 201);
    t.match(session.body, { status: "open", size_bytes: bytes.length, part_size_bytes: partSize, received_parts: [] });
    const grants = session.body.parts as Json[];
    t.equal(grants.length, 2, "a grant per part");
    const replay = await call("/v1/uploads", { user: ann, body: request, headers: { "Idempotency-Key": key } });
    t.equal(replay.headers.get("idempotent-replayed"), "true");
    t.equal(replay.body.id, session.body.id, "a replay answers the same session");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: bytes.length } }, "the size is reserved once");

    t.equal((await putPart(grants[0]!, bytes.subarray(0, partSize))).status, 201, "part 1 goes straight to storage");
    const uploadId = String(session.body.id);
    const resumed = await call(`/v1/uploads/${uploadId}`, { user: ann });
    t.match(resumed, { status: 200, body: { received_parts: [1] } }, "resume lists what is stored");
    t.equal((resumed.body.parts as Json[]).length, 1, "and grants only the missing part");
    t.match(await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes) } }), { status: 409, body: { code: "upload_incomplete" } });
    t.equal((await putPart((resumed.body.parts as Json[])[0]!, bytes.subarray(partSize))).status, 201);

    const completed = await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes) } });
    t.match(completed, { status: 202, body: { number: 1, size_bytes: bytes.length, sha256: sha256(bytes), status: "quarantined" } });
    const again = await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes) } });
    t.match(again, { status: 202, body: { id: completed.body.id } }, "completing again with the same checksum answers the same version");
    const fileId = String(completed.body.node_id);

    const node = await published(ann, fileId);
    t.equal(node.current_version_id, completed.body.id, "the clean scan made the version current");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { used_bytes: bytes.length, reserved_bytes: 0 } }, "the reservation became used bytes");

    const download = await call(`/v1/nodes/${fileId}/downloads`, { user: ann, body: {} });
    t.match(download, { status: 201, body: { version: { id: completed.body.id, status: "published" } } });
    t.equal(download.headers.get("cache-control"), "no-store");
    const got = await fetch(`${server.url}${String(download.body.url)}`);
    t.equal(got.status, 200);
    t.equal(sha256(new Uint8Array(await got.arrayBuffer())), sha256(bytes), "the grant serves the stored bytes");
    const ranged = await fetch(`${server.url}${String(download.body.url)}`, { headers: { Range: `bytes=${partSize}-` } });
    t.equal(ranged.status, 206, "an interrupted download resumes with Range");
    t.equal(ranged.headers.get("content-range"), `bytes ${partSize}-${bytes.length - 1}/${bytes.length}`);
    t.same(new Uint8Array(await ranged.arrayBuffer()), bytes.subarray(partSize), "exactly the rest of the bytes");
    t.equal((await fetch(`${server.url}${String(download.body.url)}`, { headers: { Range: `bytes=${bytes.length}-` } })).status, 416, "a range outside the object is 416");

    const link = await call(`/v1/nodes/${folderId}/share-links`, { user: ann, body: { allow_download: true } });
    t.equal(link.status, 201);
    const token = String(link.body.token);
    t.match(await call(`/v1/file-shares/access?node_id=${fileId}`, { headers: { "X-Share-Token": token } }), { status: 200, body: { id: fileId, name: "q3.txt" } }, "a recipient reaches a file in the shared folder");
    const shared = await call("/v1/file-shares/access/downloads", { body: { node_id: fileId }, headers: { "X-Share-Token": token } });
    t.equal(shared.status, 201, "and takes a download grant");
    const listed = await call(`/v1/nodes/${folderId}/share-links`, { user: ann });
    t.equal((listed.body.data as Json[]).length, 1);
    t.notOk("token" in (listed.body.data as Json[])[0]!, "listing never shows the token");
    t.equal((await call(`/v1/nodes/${folderId}/share-links/${String(link.body.id)}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await call("/v1/file-shares/access", { headers: { "X-Share-Token": token } }), { status: 404 }, "a revoked link answers 404");
    t.notOk(logText().includes(token), "the share token appears in no log line");

    const archive = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Archive", kind: "folder" } });
    t.match(await call(`/v1/nodes/${fileId}`, { user: ann, method: "PATCH", body: { parent_id: archive.body.id } }), { status: 428 }, "a move needs If-Match");
    const stale = await call(`/v1/nodes/${fileId}`, { user: ann, method: "PATCH", body: { parent_id: archive.body.id }, headers: { "If-Match": '"9"' } });
    t.match(stale, { status: 412, body: { code: "version_mismatch", current: { id: fileId, parent_id: folderId, version: node.version } } });
    t.notOk("created_by" in (stale.body.current as Json) || "trashRootId" in (stale.body.current as Json), "`current` is the node view a GET answers");
    const moved = await call(`/v1/nodes/${fileId}`, { user: ann, method: "PATCH", body: { parent_id: archive.body.id, name: "q3-final.txt" }, headers: { "If-Match": `"${String(node.version)}"` } });
    t.match(moved, { status: 200, body: { parent_id: archive.body.id, name: "q3-final.txt" } });
    t.equal(moved.headers.get("etag"), `"${Number(node.version) + 1}"`, "the ETag is the new version");

    t.equal((await call(`/v1/nodes/${folderId}`, { user: ann, method: "DELETE" })).status, 204, "trash");
    const trash = await call(`/v1/workspaces/${ws.id}/trash`, { user: ann });
    t.match(trash, { status: 200, body: { data: [{ id: folderId, name: "Reports" }], next_cursor: null } }, "the trash lists the folder");
    t.match(await call(`/v1/nodes/${folderId}/restore`, { user: ann, method: "POST" }), { status: 200, body: { trashed_at: null } }, "restore");

    const feed = await call(`/v1/changes?workspace_id=${ws.id}`, { user: ann });
    t.equal(feed.status, 200);
    const types = (feed.body.data as Json[]).map((c) => c.type);
    t.same(types, ["node.created", "node.created", "version.published", "node.created", "node.moved", "node.trashed", "node.restored"], "every change in order");
    t.equal(feed.body.has_more, false);
    const later = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(feed.body.next_cursor)}`, { user: ann });
    t.match(later, { status: 200, body: { data: [], has_more: false, next_cursor: feed.body.next_cursor } }, "next_cursor is never null: nothing new yet");
  }),
);

t.test("the OpenAPI document describes every file storage route", async (t) => {
  const { server } = await startFilesServer(t, "sqlite");
  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  for (const route of filesRoutes) {
    const path = route.path.replace(/:([a-z_]+)/g, "{$1}");
    t.ok(document.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path} is described`);
  }
});
