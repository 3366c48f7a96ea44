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
import { bytesOf, filesRuntime, uploadFile, workspaceWithDrive } from "./support.js";

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
