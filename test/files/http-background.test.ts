/**
 * Thumbnails and the audit export over HTTP on the reference server (SQLite and Postgres), with
 * the in-process worker running their jobs: an uploaded PNG gets a thumbnail whose grant serves a
 * WebP straight from the store; a workspace admin's audit export becomes a JSON lines download.
 */
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import t from "tap";
import { startFilesServer, type Answer, eachDialect } from "./http-support.js";
import { eventually } from "../support/eventually.js";

/** Polls `ask` until `done` holds, at most 10 s. */
const until = (ask: () => Promise<Answer>, done: (a: Answer) => boolean): Promise<Answer> => eventually(ask, done, 10_000);

t.test("an uploaded image's thumbnail and the audit export are served through grants over HTTP", (t) =>
  eachDialect(t, "background work over HTTP", async (t, dialect) => {
    const { server, call, user, workspace, upload, published } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);
    const absolute = (url: string) => (url.startsWith("http") ? url : `${server.url}${url}`);

    const png = await sharp({ create: { width: 300, height: 150, channels: 3, background: { r: 0, g: 120, b: 0 } } }).png().toBuffer();
    const version = await upload(ann, ws.root, "green.png", png, 8 * 1024 * 1024, { content_type: "image/png" });
    t.equal(version.status, 202);
    const nodeId = String(version.body.node_id);
    await published(ann, nodeId);
    const thumbnail = await until(() => call(`/v1/nodes/${nodeId}/thumbnail`, { user: ann }), (a) => a.status === 200);
    t.match(thumbnail, { status: 200, body: { content_type: "image/webp", width: 256, height: 128, version_id: String(version.body.id) } });
    const bytes = await fetch(absolute(String(thumbnail.body.url)));
    t.equal(bytes.status, 200, "the grant serves the thumbnail from the store");
    t.equal((await sharp(Buffer.from(await bytes.arrayBuffer())).metadata()).format, "webp");
    t.match(await call(`/v1/nodes/${nodeId}/thumbnail`, { user: bob }), { status: 404 }, "a member without access gets 404");

    t.match(await call(`/v1/workspaces/${ws.id}/audit-exports`, { user: bob, body: {}, headers: { "Idempotency-Key": randomUUID() } }), { status: 403 }, "a member who is not an admin");
    t.match(await call(`/v1/workspaces/${ws.id}/drive/quota`, { user: ann, method: "PUT", body: { quota_bytes: 50 * 1024 * 1024 } }), { status: 200 });
    const requested = await call(`/v1/workspaces/${ws.id}/audit-exports`, { user: ann, body: {}, headers: { "Idempotency-Key": randomUUID() } });
    t.match(requested, { status: 202, body: { status: "pending", download: null } });
    const done = await until(() => call(`/v1/workspaces/${ws.id}/audit-exports/${String(requested.body.id)}`, { user: ann }), (a) => a.body.status !== "pending");
    t.match(done, { status: 200, body: { status: "done", line_count: 2, download: { url: String, expires_at: String } } });
    const jsonl = await fetch(absolute(String((done.body.download as Record<string, unknown>).url)));
    const lines = (await jsonl.text()).trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    t.match(lines, [{ type: "audit_export", workspace_id: ws.id }, { type: "audit", action: "drive.quota_set", actor_id: ann.id }]);
    t.match(await call(`/v1/workspaces/${ws.id}/audit-exports/${String(requested.body.id)}`, { user: bob }), { status: 404 });
  }),
);
