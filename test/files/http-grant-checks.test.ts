/**
 * Grants that know their drive's current access, on the reference server's local blob store
 * (SQLite and Postgres). Spec (Authentication 4 and 5): "A cached authorization decision is
 * trusted only for a very short session epoch"; "An authorization epoch is carried in caches and
 * tokens; revocation bumps the epoch"; share links are revocable. A download grant carries the
 * ACL epoch it was issued under: once access is lost it serves nothing (403 grant_revoked). And
 * (Limits) "Unfinished uploads are bounded by their reservation": a part grant names its session,
 * and once the session is settled it stores nothing (409 upload_not_open).
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import t from "tap";
import { Effect } from "effect";
import { makeLocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { partKey } from "../../core/files/ObjectKeys.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { hostSecret } from "../hosts/support.js";
import { dialects, type Dialect } from "../support/databases.js";
import { startFilesServer, type Json, type User, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";

const operatorId = randomUUID();

/**
 * One reference server per dialect (with a security operator), shared by every claim below (each
 * makes its own users and workspace), both started at once; closed when the file's tests end.
 */
const servers = new Map(dialects.map((dialect) => [dialect, startFilesServer(t, dialect, { FILES_SECURITY_OPERATORS: operatorId })] as const));
const serverOf = (dialect: Dialect) => servers.get(dialect)!;

/** What a GET of a grant URL answers: status, content type and the body as text. */
const fetchGrant = async (baseUrl: string, url: string) => {
  const response = await fetch(url.startsWith("http") ? url : `${baseUrl}${url}`);
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
};

t.test("a download grant issued before the holder lost access serves no bytes (403 grant_revoked); one issued after re-granting does", { jobs: 2 }, (t) =>
  eachDialect(t, "download grants carry the ACL epoch", async (t, dialect) => {
    const { server, call, user, workspace, upload, published } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const cid = await user();
    const ws = await workspace(ann, [ben, cid]);
    const folder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const other = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Other", kind: "folder" } });
    const content = "the plan, in bytes";
    const uploaded = await upload(ann, String(folder.body.id), "plan.txt", new TextEncoder().encode(content), defaultFilesSettings.partSizeBytes);
    t.equal(uploaded.status, 202);
    const fileId = String(uploaded.body.node_id);
    await published(ann, fileId);
    const permit = async (who: User, folderId: string) =>
      t.equal((await call(`/v1/nodes/${folderId}/permissions`, { user: ann, body: { user_id: who.id, role: "viewer" } })).status, 200);
    const revoke = async (who: User, folderId: string) => t.equal((await call(`/v1/nodes/${folderId}/permissions/${who.id}`, { user: ann, method: "DELETE" })).status, 204);
    const download = async (who: User): Promise<string> => {
      const issued = await call(`/v1/nodes/${fileId}/downloads`, { user: who, body: {} });
      t.equal(issued.status, 201, "a grant is issued");
      return String(issued.body.url);
    };

    await permit(ben, String(folder.body.id));
    await permit(cid, String(other.body.id));
    const before = await download(ben);
    t.match(await fetchGrant(server.url, before), { status: 200, text: content }, "the grant serves the bytes while access holds");

    // A revocation elsewhere in the workspace moves the epoch, but ben still sees the file.
    await revoke(cid, String(other.body.id));
    t.match(await fetchGrant(server.url, before), { status: 200, text: content }, "a grant whose holder still has access survives another member's revocation");

    await revoke(ben, String(folder.body.id));
    const refused = await fetchGrant(server.url, before);
    t.match(refused, { status: 403, type: /^application\/problem\+json/, text: /"code":"grant_revoked"/ }, "the grant of a revoked viewer is refused");
    t.notOk(refused.text.includes(content), "no bytes");

    await permit(ben, String(folder.body.id));
    const after = await download(ben);
    t.match(await fetchGrant(server.url, after), { status: 200, text: content }, "a grant issued after re-granting works");

    // Leaving the workspace is a loss of access too.
    t.equal((await call(`/v1/workspaces/${ws.id}/members/${ben.id}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await fetchGrant(server.url, after), { status: 403, type: /^application\/problem\+json/, text: /"code":"grant_revoked"/ }, "a removed member's grant is refused");

    // A share link's grants end with the link.
    const link = await call(`/v1/nodes/${String(folder.body.id)}/share-links`, { user: ann, body: { allow_download: true } });
    t.equal(link.status, 201);
    const shared = await call("/v1/file-shares/access/downloads", { body: { node_id: fileId }, headers: { "X-Share-Token": String(link.body.token) } });
    t.equal(shared.status, 201);
    t.match(await fetchGrant(server.url, String(shared.body.url)), { status: 200, text: content }, "a link's grant serves the bytes while the link lives");
    t.equal((await call(`/v1/nodes/${String(folder.body.id)}/share-links/${String(link.body.id)}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await fetchGrant(server.url, String(shared.body.url)), { status: 403, type: /^application\/problem\+json/, text: /"code":"grant_revoked"/ }, "a revoked link's grant is refused");
  }),
);

t.test("a move that takes a file out of a viewer's reach ends their download grant (403 grant_revoked)", { jobs: 2 }, (t) =>
  eachDialect(t, "a move out of reach is a loss of access", async (t, dialect) => {
    const { server, call, user, workspace, upload, published } = await serverOf(dialect);
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const shared = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    const privateFolder = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Private", kind: "folder" } });
    const content = "moved away";
    const uploaded = await upload(ann, String(shared.body.id), "memo.txt", new TextEncoder().encode(content), defaultFilesSettings.partSizeBytes);
    const fileId = String(uploaded.body.node_id);
    await published(ann, fileId);
    t.equal((await call(`/v1/nodes/${String(shared.body.id)}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } })).status, 200);
    const issued = await call(`/v1/nodes/${fileId}/downloads`, { user: ben, body: {} });
    t.equal(issued.status, 201);
    const url = String(issued.body.url);
    t.match(await fetchGrant(server.url, url), { status: 200, text: content }, "the grant serves the bytes while ben sees the file");

    const node = await call(`/v1/nodes/${fileId}`, { user: ann, method: "GET" });
    const moved = await call(`/v1/nodes/${fileId}`, { user: ann, method: "PATCH", body: { parent_id: String(privateFolder.body.id) }, headers: { "If-Match": String(node.body.version) } });
    t.equal(moved.status, 200, "ann moves the file into her private folder");
    const refused = await fetchGrant(server.url, url);
    t.match(refused, { status: 403, type: /^application\/problem\+json/, text: /"code":"grant_revoked"/ }, "ben's grant is refused once the file left his view");
    t.notOk(refused.text.includes(content), "no bytes");
  }),
);

t.test("a settled upload session's part grant stores nothing (409 upload_not_open): completed or aborted", { jobs: 2 }, (t) =>
  eachDialect(t, "upload grants name their session", async (t, dialect) => {
    const { config, call, user, workspace, putPart } = await serverOf(dialect);
    // The server's own store folder, read directly: what is stored under a key.
    const store = makeLocalBlobStore({ dir: config.blobDir, signingSecret: config.blobSigningSecret });
    const stat = (key: string) => Effect.runPromise(store.stat(key));
    const ann = await user();
    const ws = await workspace(ann);
    const partSize = defaultFilesSettings.partSizeBytes;
    const bytes = new Uint8Array(partSize + 37).map((_, i) => 97 + (i % 26));
    const first = bytes.subarray(0, partSize);
    const open = async (name: string) => {
      const session = await call("/v1/uploads", {
        user: ann,
        headers: { "Idempotency-Key": randomUUID() },
        body: { parent_id: ws.root, name, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: [sha256(first), sha256(bytes.subarray(partSize))] },
      });
      t.equal(session.status, 201);
      return { id: String(session.body.id), parts: session.body.parts as Json[] };
    };
    const refusedPut = async (grant: Json, what: string) => {
      const answer = await putPart(grant, first);
      const text = await answer.text();
      t.match({ status: answer.status, type: answer.headers.get("content-type"), text }, { status: 409, type: /^application\/problem\+json/, text: /"code":"upload_not_open"/ }, `${what}: the old grant is refused`);
    };

    const completed = await open("done.txt");
    t.equal((await putPart(completed.parts[0]!, first)).status, 201, "an open session's grant stores its part");
    t.equal((await putPart(completed.parts[1]!, bytes.subarray(partSize))).status, 201);
    t.equal((await call(`/v1/uploads/${completed.id}/complete`, { user: ann, body: { sha256: sha256(bytes) } })).status, 202);
    t.equal(await stat(partKey(ws.id, completed.id, 1)), null, "the completion removed the part objects");
    await refusedPut(completed.parts[0]!, "completed");
    t.equal(await stat(partKey(ws.id, completed.id, 1)), null, "nothing stored after completion");

    const aborted = await open("gone.txt");
    t.equal((await call(`/v1/uploads/${aborted.id}`, { user: ann, method: "DELETE" })).status, 204);
    await refusedPut(aborted.parts[0]!, "aborted");
    t.equal(await stat(partKey(ws.id, aborted.id, 1)), null, "nothing stored after the abort");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: 0 } }, "nothing reserved either");
  }),
);

t.test("a part whose PUT was streaming when its session was aborted is not stored (409 upload_not_open)", { jobs: 2 }, (t) =>
  eachDialect(t, "the session is checked again before the bytes are kept", async (t, dialect) => {
    const { server, config, call, user, workspace } = await serverOf(dialect);
    const store = makeLocalBlobStore({ dir: config.blobDir, signingSecret: config.blobSigningSecret });
    const ann = await user();
    const ws = await workspace(ann);
    const bytes = new Uint8Array(4096).map((_, i) => 97 + (i % 26));
    const session = await call("/v1/uploads", {
      user: ann,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: ws.root, name: "late.txt", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: [sha256(bytes)] },
    });
    t.equal(session.status, 201);
    const part = (session.body.parts as Json[])[0]!;
    const url = new URL(String(part.url), server.url);
    const tmpBefore = await readdir(path.join(config.blobDir, "tmp")).catch(() => [] as string[]);
    // Half the bytes, then the abort, then the rest: the PUT passed the check made before its body.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(url, { method: "PUT", headers: { ...(part.headers as Record<string, string>), "Content-Length": String(bytes.length) } }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      });
      request.on("error", reject);
      request.write(bytes.subarray(0, 2048));
      void (async () => {
        // Streaming has begun once the store's temp file exists (the check before the body passed);
        // the server is shared, so a new one among those there before.
        const tmp = path.join(config.blobDir, "tmp");
        const streaming = async () => (await readdir(tmp).catch(() => [])).some((name) => !tmpBefore.includes(name));
        for (let i = 0; i < 500 && !(await streaming()); i++) await new Promise((r) => setTimeout(r, 10));
        t.equal((await call(`/v1/uploads/${String(session.body.id)}`, { user: ann, method: "DELETE" })).status, 204, "aborted while the PUT streams");
        request.end(bytes.subarray(2048));
      })();
    });
    t.match(await answer, { status: 409, text: /"code":"upload_not_open"/ }, "the late bytes are refused");
    t.equal(await Effect.runPromise(store.stat(partKey(ws.id, String(session.body.id), 1))), null, "and not stored");
  }),
);

/*
 * Spec (What the service does): "A quarantined version is never downloadable"; (Endpoints, rule 4)
 * "A quarantined version never yields a download"; decisions, files fix 5: blocked bytes are never
 * downloadable. A grant handed out while the version was published stops serving it once a
 * security operator blocks it: a member's grant and a share link's grant alike.
 */
t.test("a version blocked after its download grants were issued is not downloadable through them (403 grant_revoked)", { jobs: 2 }, (t) =>
  eachDialect(t, "a blocked version ends its grants", async (t, dialect) => {
    const { server, call, user, workspace, upload, published } = await serverOf(dialect);
    const op = { id: operatorId, token: await mintToken({ secret: hostSecret, userId: operatorId, ttlSeconds: 600 }) };
    const ann = await user();
    const ws = await workspace(ann);
    const content = "bytes found malicious later";
    const uploaded = await upload(ann, ws.root, "tool.txt", new TextEncoder().encode(content), defaultFilesSettings.partSizeBytes);
    t.equal(uploaded.status, 202);
    const fileId = String(uploaded.body.node_id);
    const versionId = String(uploaded.body.id);
    await published(ann, fileId);
    const member = await call(`/v1/nodes/${fileId}/downloads`, { user: ann, body: {} });
    t.equal(member.status, 201, "a member's grant is issued");
    const link = await call(`/v1/nodes/${fileId}/share-links`, { user: ann, body: { allow_download: true } });
    t.equal(link.status, 201);
    const shared = await call("/v1/file-shares/access/downloads", { body: {}, headers: { "X-Share-Token": String(link.body.token) } });
    t.equal(shared.status, 201, "a link's grant is issued");
    t.match(await fetchGrant(server.url, String(member.body.url)), { status: 200, text: content }, "the member's grant serves the published version");
    t.match(await fetchGrant(server.url, String(shared.body.url)), { status: 200, text: content }, "so does the link's");

    const blocked = await call(`/v1/operator/file-versions/${versionId}/review`, { user: op, body: { decision: "block", reason: "malware found after publication" } });
    t.match(blocked, { status: 200, body: { version_id: versionId, status: "blocked" } });
    for (const [who, url] of [["member", String(member.body.url)], ["share link", String(shared.body.url)]] as const) {
      const refused = await fetchGrant(server.url, url);
      t.match(refused, { status: 403, type: /^application\/problem\+json/, text: /"code":"grant_revoked"/ }, `the ${who}'s grant is refused once the version is blocked`);
      t.notOk(refused.text.includes(content), "no bytes");
    }
  }),
);
