/**
 * Security operators: they list quarantined, blocked and scan_failed versions; release or block
 * after review with a reason; and take audited, reason-bearing sample grants of versions nobody
 * else may download. Everyone else is refused; the audit trail is append-only.
 */
import t from "tap";
import { requestDownload } from "../../core/files/RequestDownload.js";
import { scanVersion } from "../../core/files/ScanVersion.js";
import { listQuarantine, reviewVersion, sampleVersion } from "../../core/files/SecurityReview.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, filesRuntime, publishFile, uploadFile, workspaceWithDrive } from "./support.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { changeCursor } from "../../core/files/ListChanges.js";
import { restoreVersion } from "../../core/files/RestoreVersion.js";
import { requestThumbnail } from "../../core/files/ThumbnailQueries.js";

t.test("operators review quarantine: list, audited sample access, release or block with a reason", (t) =>
  forEachFilesDialect(t, "security review", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const blocked = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "eicar.com", bytes: bytesOf(eicarTestString) });
    await env.run(scanVersion("ws1", blocked.id, { attempt: 1, maxAttempts: 3 }));
    const waiting = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "later.txt", bytes: bytesOf("later") });

    t.match(await env.attempt(listQuarantine({ operatorId: "ann", cursor: null, limit: 10 })), { ok: false, error: { _tag: "Forbidden" } }, "members are not operators");
    // Spec Endpoints rule 1: "An unknown object returns 404 where 403 would leak its existence".
    t.match(await env.attempt(sampleVersion({ operatorId: "ann", workspaceId: "ws1", versionId: blocked.id, reason: "curious" })), { ok: false, error: { _tag: "NotFound" } }, "a non-operator learns nothing about a version");
    t.match(await env.attempt(reviewVersion({ operatorId: "ann", workspaceId: "ws1", versionId: waiting.id, decision: "release", reason: "mine" })), { ok: false, error: { _tag: "NotFound" } });
    const page = await env.run(listQuarantine({ operatorId: "sec-op", cursor: null, limit: 1 }));
    const next = await env.run(listQuarantine({ operatorId: "sec-op", cursor: page.next_cursor, limit: 1 }));
    t.same([...page.data, ...next.data].map((v) => v.id).sort(), [blocked.id, waiting.id].sort(), "both, page by page");

    t.match(await env.attempt(sampleVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: blocked.id, reason: "  " })), { ok: false, error: { _tag: "ValidationFailed" } }, "a reason is required");
    const sample = await env.run(sampleVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: blocked.id, reason: "confirm the detection" }));
    t.ok(sample.url.length > 0, "the operator gets a sample grant");
    t.match(await env.attempt(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId: blocked.nodeId, versionId: blocked.id })), { ok: false, error: { code: "version_quarantined" } }, "the owner still gets none");

    t.equal(await env.run(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: waiting.id, decision: "block", reason: "policy" })), "blocked");
    t.equal(await env.run(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: blocked.id, decision: "release", reason: "false positive" })), "published");
    const node = await db.db.selectFrom("fs_nodes").select("current_version_id").where("id", "=", blocked.nodeId).executeTakeFirstOrThrow();
    t.equal(node.current_version_id, blocked.id, "a released version becomes current");

    const trail = await db.db.selectFrom("fs_audit").select(["action", "actor_id", "target_id", "reason"]).orderBy("created_at").orderBy("id").execute();
    t.same(trail.map((e) => [e.action, e.reason]), [["version.sample_access", "confirm the detection"], ["version.block", "policy"], ["version.release", "false positive"]], "every action audited with its reason");
    await t.rejects(db.db.deleteFrom("fs_audit").execute(), "the audit trail is append-only");
  }),
);

/**
 * Spec (Resources): "A file node has one current published version". Blocking the current
 * version points the file, in the same transaction, at its latest published version (or at none)
 * and appends a change record, so the change feed shows the node with its new current version.
 */
t.test("blocking the current version falls back to the latest published one (or none), with a change record", (t) =>
  forEachFilesDialect(t, "block current", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    const v2 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second!"), nodeId: v1.nodeId });
    const lastSeq = async () => Number((await db.db.selectFrom("fs_changes").select((eb) => eb.fn.max("seq").as("seq")).executeTakeFirstOrThrow()).seq);
    const feedAfter = (seq: number) => env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: changeCursor(seq), limit: 50 }));

    const before = await lastSeq();
    t.equal(await env.run(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: v2.id, decision: "block", reason: "policy" })), "blocked");
    const node = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.match(node, { current_version_id: v1.id, size_bytes: 5, sha256: v1.sha256 }, "the file points at its latest published version");
    const current = await db.db.selectFrom("fs_file_versions").select(["id", "status", "is_current"]).where("node_id", "=", v1.nodeId).orderBy("number").execute();
    t.same(current.map((v) => [v.id, v.status, Boolean(v.is_current)]), [[v1.id, "published", true], [v2.id, "blocked", false]], "v1 is the one current version");
    const feed = await feedAfter(before);
    t.equal(feed.data.length, 1, "one change record");
    t.equal(feed.data[0]?.node?.currentVersionId, v1.id, "the feed shows the node's new current version");

    const again = await lastSeq();
    t.equal(await env.run(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: v1.id, decision: "block", reason: "policy" })), "blocked");
    const bare = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.match(bare, { current_version_id: null, size_bytes: null, sha256: null }, "no published version left: no current version");
    const second = await feedAfter(again);
    t.equal(second.data.length, 1, "one change record");
    t.equal(second.data[0]?.node?.currentVersionId, null, "the feed says the node has no current version");
    t.match(await env.attempt(requestThumbnail({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId })), { ok: false, error: { _tag: "NotFound" } }, "no thumbnail of a blocked version");
  }),
);

/**
 * Spec (What the service does): "A quarantined version is never downloadable". A restored
 * version reuses the original's stored object, so blocking the original blocks every version
 * that shares its bytes, in the same transaction: the restored copy is not downloadable either.
 */
t.test("blocking a version blocks its restored copies: the blocked bytes are not downloadable through them", (t) =>
  forEachFilesDialect(t, "block restored", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    const v2 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second!"), nodeId: v1.nodeId });
    const v3 = await env.run(restoreVersion({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v1.id }));
    t.match(v3, { number: 3, status: "published", objectKey: v1.objectKey }, "v3 restores v1's bytes");
    t.ok((await env.attempt(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v3.id }))).ok, "downloadable before the block");

    t.equal(await env.run(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: v1.id, decision: "block", reason: "malware found later" })), "blocked");
    t.match(await env.attempt(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v3.id })), { ok: false, error: { code: "version_quarantined" } }, "the restored copy is refused");
    t.match(await env.attempt(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v1.id })), { ok: false, error: { code: "version_quarantined" } }, "the original is refused");
    const rows = await db.db.selectFrom("fs_file_versions").select(["id", "status"]).where("node_id", "=", v1.nodeId).orderBy("number").execute();
    t.same(rows.map((r) => r.status), ["blocked", "published", "blocked"], "every version sharing the object is blocked");
    const node = await db.db.selectFrom("fs_nodes").select("current_version_id").where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.equal(node.current_version_id, v2.id, "the file falls back to v2, the latest version with other bytes");
    const download = await env.run(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: null }));
    t.equal(download.version.id, v2.id, "the file's download serves v2");
  }),
);

/**
 * Spec: "A quarantined version is never downloadable" — a restore of a version racing its block
 * (Postgres: real parallel connections) never leaves a published copy of the blocked bytes.
 */
t.test("a restore racing a block of the same version never leaves its bytes published [postgres races, sqlite serializes]", (t) =>
  forEachFilesDialect(t, "restore vs block", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second!"), nodeId: v1.nodeId });
    await Promise.all([
      env.attempt(restoreVersion({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v1.id })),
      env.attempt(reviewVersion({ operatorId: "sec-op", workspaceId: "ws1", versionId: v1.id, decision: "block", reason: "race" })),
    ]);
    const sharing = await db.db.selectFrom("fs_file_versions").select(["id", "status"]).where("object_key", "=", v1.objectKey).execute();
    t.ok(sharing.length >= 1);
    t.ok(sharing.every((v) => v.status === "blocked"), "every version with the blocked bytes is blocked");
  }),
);
