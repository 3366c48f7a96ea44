/**
 * Spec (States: "POST /v1/uploads — caller can edit the parent folder"; Authentication 2: "ACL
 * checks include ancestors and current tenant membership"; Authentication 3: presigned
 * operations): a part grant is a write capability issued for what opening the session needed.
 * Resuming (GET /v1/uploads/:id) and reporting a part answer fresh grants only while the
 * session's owner may still create in the folder (or edit the file, for a new version), as
 * completing requires: otherwise 404 (403 while the owner still sees the folder), and no grant.
 * The owner can still abort, and a re-granted owner resumes — SQLite and Postgres.
 */
import t from "tap";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { reportUploadPart } from "../../core/files/ReportUploadPart.js";
import { getUpload } from "../../core/files/UploadQueries.js";
import { bytesOf, filesRuntime, forEachFilesDialect, testSettings, uploadParts, workspaceWithDrive } from "./support.js";

t.test("resume and part reports grant parts only while the owner may still upload into the folder", (t) =>
  forEachFilesDialect(t, "upload grants need access", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
    const folder = await env.run(createFolder({ userId: "bob", workspaceId: "ws1", parentId: root, name: "team" }));
    await env.run(grantAccess({ userId: "bob", workspaceId: "ws1", nodeId: folder.id, granteeId: "ann", role: "editor" }));
    const bytes = bytesOf("x".repeat(testSettings.partSizeBytes * 2));
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "f.bin", bytes });
    const resumed = await env.run(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    t.equal(resumed.status, "open", "an editor resumes");

    await env.run(revokeAccess({ userId: "bob", workspaceId: "ws1", nodeId: folder.id, granteeId: "ann" }));
    t.match(await env.attempt(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id })), { ok: false, error: { _tag: "NotFound" } }, "a revoked owner gets no fresh grants");
    t.match(
      await env.attempt(reportUploadPart({ userId: "ann", workspaceId: "ws1", uploadId: session.id, partNumber: 1, etag: '"e1"' })),
      { ok: false, error: { _tag: "NotFound" } },
      "nor by reporting a part",
    );
    await env.run(grantAccess({ userId: "bob", workspaceId: "ws1", nodeId: folder.id, granteeId: "ann", role: "viewer" }));
    t.match(await env.attempt(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id })), { ok: false, error: { _tag: "Forbidden" } }, "a viewer of the folder: 403");
    await env.run(grantAccess({ userId: "bob", workspaceId: "ws1", nodeId: folder.id, granteeId: "ann", role: "editor" }));
    t.match(await env.run(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id })), { status: "open" }, "re-granted, the owner resumes");

    await env.run(revokeAccess({ userId: "bob", workspaceId: "ws1", nodeId: folder.id, granteeId: "ann" }));
    await env.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    t.match(await env.run(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id })), { status: "aborted", parts: [] }, "the owner still aborts, and sees the settled session");
  }),
);
