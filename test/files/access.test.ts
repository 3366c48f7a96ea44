/**
 * Spec rule 6 and the ACL rules: another workspace's node, and a node the caller may not learn
 * exists, is NotFound (404) for every use case; 403 only where the caller can see the node.
 * Grants inherit down the tree; checks read current membership and grants, so a removed member
 * or a revoked grant loses access at the next request. Every member may list the root but sees
 * only the children granted to them, filtered before the page limit.
 */
import "../../adapters/sql/projects/index.js";
import t from "tap";
import { Effect } from "effect";
import { sql } from "kysely";
import { makeSqlProjectsWorkspaceDirectory } from "../../adapters/sql/files/SqlProjectsWorkspaceDirectory.js";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { requestAuditExport } from "../../core/files/AuditExports.js";
import { completeUpload } from "../../core/files/CompleteUpload.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { getDrive, setQuota } from "../../core/files/Drives.js";
import { setLegalHold } from "../../core/files/LegalHold.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { getNode, listChildren } from "../../core/files/NodeQueries.js";
import { grantAccess, listPermissions, revokeAccess } from "../../core/files/Permissions.js";
import { reportUploadPart } from "../../core/files/ReportUploadPart.js";
import { requestExtraction } from "../../core/files/RequestExtraction.js";
import { restoreNode } from "../../core/files/RestoreNode.js";
import { restoreVersion } from "../../core/files/RestoreVersion.js";
import { createShareLink, revokeShareLink } from "../../core/files/ShareLinks.js";
import { trashNode } from "../../core/files/TrashNode.js";
import type { FilesServices } from "../../core/files/Services.js";
import { getUpload } from "../../core/files/UploadQueries.js";
import { Transactions } from "../../ports/Transactions.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, filesRuntime, partChecksums, publishFile, sha256, uploadParts, workspaceWithDrive } from "./support.js";
import { makeZip } from "./zip.js";

t.test("another workspace's node, upload and drive are NotFound for every use case", (t) =>
  forEachFilesDialect(t, "tenant isolation", async (t, db) => {
    const env = filesRuntime(t, db);
    const root1 = await workspaceWithDrive(env, "ws1", "ann");
    const root2 = await workspaceWithDrive(env, "ws2", "eve");
    const secret = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root1, name: "secret" }));
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root1, name: "f.txt", bytes: bytesOf("x") });
    // eve asks in her own workspace for ann's objects, and in ann's workspace where she is no member.
    for (const ws of ["ws2", "ws1"]) {
      const id = { userId: "eve", workspaceId: ws, nodeId: secret.id };
      const attempts = [
        getNode(id),
        listChildren({ ...id, cursor: null, limit: 10 }),
        moveNode({ ...id, expectedVersion: 1, name: "mine", parentId: null }),
        trashNode(id),
        restoreNode(id),
        grantAccess({ ...id, granteeId: "eve", role: "owner" }),
        revokeAccess({ ...id, granteeId: "ann" }),
        listPermissions({ ...id, cursor: null, limit: 50 }),
        createFolder({ userId: "eve", workspaceId: ws, parentId: secret.id, name: "x" }),
        createUpload({ userId: "eve", workspaceId: ws, parentId: secret.id, name: "x", sizeBytes: 1, sha256: sha256("x"), contentType: "text/plain", nodeId: null, partSha256: null }),
        completeUpload({ userId: "eve", workspaceId: ws, uploadId: session.id, sha256: sha256("x") }),
        abortUpload({ userId: "eve", workspaceId: ws, uploadId: session.id }),
      ] as ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }, FilesServices>>;
      for (const [i, effect] of attempts.entries()) {
        const r = await env.attempt(effect);
        t.match(r, { ok: false, error: { _tag: "NotFound" } }, `use case ${i} in ${ws} answers NotFound`);
      }
    }
    t.match(await env.attempt(getDrive("eve", "ws1")), { ok: false, error: { _tag: "NotFound" } }, "another workspace's drive");
    t.match(await env.attempt(moveNode({ userId: "ann", workspaceId: "ws1", nodeId: secret.id, expectedVersion: 1, name: null, parentId: root2 })), { ok: false, error: { _tag: "NotFound" } }, "a destination in another workspace");
  }),
);

t.test("members list the root but see only granted children, filtered before the limit; grants inherit; 403 only when visible", (t) =>
  forEachFilesDialect(t, "acl", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const names = ["a", "b", "c", "d", "e"];
    const folders = [];
    for (const name of names) folders.push(await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name })));
    const [, b, , d] = folders;
    const deep = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: b!.id, name: "deep" }));
    const list = (cursor: string | null) => env.run(listChildren({ userId: "ben", workspaceId: "ws1", nodeId: root, cursor, limit: 1 }));
    t.same((await list(null)).data, [], "nothing granted: an empty root");
    t.match(await env.attempt(getNode({ userId: "ben", workspaceId: "ws1", nodeId: b!.id })), { ok: false, error: { _tag: "NotFound" } }, "an ungranted node is NotFound");

    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: b!.id, granteeId: "ben", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: d!.id, granteeId: "ben", role: "editor" }));
    const first = await list(null);
    t.same(first.data.map((n) => n.name), ["b"], "a page of one holds the first granted child");
    const second = await list(first.next_cursor);
    t.same(second.data.map((n) => n.name), ["d"], "the next page the second");
    t.equal(second.next_cursor, null, "and no more");

    t.match(await env.run(getNode({ userId: "ben", workspaceId: "ws1", nodeId: deep.id })), { id: deep.id }, "a viewer grant inherits down the tree");
    t.match(await env.attempt(moveNode({ userId: "ben", workspaceId: "ws1", nodeId: deep.id, expectedVersion: 1, name: "mine", parentId: null })), { ok: false, error: { _tag: "Forbidden" } }, "a viewer may not rename: 403, the node is visible");
    t.match(await env.attempt(grantAccess({ userId: "ben", workspaceId: "ws1", nodeId: d!.id, granteeId: "ben", role: "owner" })), { ok: false, error: { _tag: "Forbidden" } }, "an editor may not manage the ACL");
    t.ok((await env.attempt(createFolder({ userId: "ben", workspaceId: "ws1", parentId: d!.id, name: "mine" }))).ok, "an editor creates inside");

    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: b!.id, granteeId: "ben" }));
    t.match(await env.attempt(getNode({ userId: "ben", workspaceId: "ws1", nodeId: deep.id })), { ok: false, error: { _tag: "NotFound" } }, "a revocation is visible at the next request");
    const epoch = await db.db.selectFrom("fs_drives").select("acl_epoch").where("workspace_id", "=", "ws1").executeTakeFirstOrThrow();
    t.equal(Number(epoch.acl_epoch), 2, "the revocation bumped the ACL epoch");

    env.directory.set("ws1", "ben", null);
    t.match(await env.attempt(getNode({ userId: "ben", workspaceId: "ws1", nodeId: d!.id })), { ok: false, error: { _tag: "NotFound" } }, "a removed member loses access at once, grants notwithstanding");
  }),
);

t.test("whoever creates at the root owns the new node; only an admin sets the quota", (t) =>
  forEachFilesDialect(t, "root owner", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const mine = await env.run(createFolder({ userId: "ben", workspaceId: "ws1", parentId: root, name: "ben's" }));
    const grants = await env.run(listPermissions({ userId: "ben", workspaceId: "ws1", nodeId: mine.id, cursor: null, limit: 50 }));
    t.match(grants, { data: [{ userId: "ben", role: "owner" }], next_cursor: null });
    t.match(await env.attempt(getNode({ userId: "ann", workspaceId: "ws1", nodeId: mine.id })), { ok: false, error: { _tag: "NotFound" } }, "the admin does not see content by standing alone");
    t.match(await env.attempt(setQuota("ben", "ws1", 5)), { ok: false, error: { _tag: "Forbidden" } });
    t.match(await env.run(setQuota("ann", "ws1", 5000)), { quotaBytes: 5000 });
  }),
);

t.test("the change feed is ordered, filtered by current access, and its cursor never ends", (t) =>
  forEachFilesDialect(t, "changes", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "private" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const inside = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "inside" }));
    const ann = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: null, limit: 50 }));
    t.same(ann.data.map((c) => c.seq), [1, 2, 4], "the owner sees every change, in sequence, but seq 3: ben's grant entering his view, addressed to him");
    const ben = await env.run(listChanges({ userId: "ben", workspaceId: "ws1", cursor: null, limit: 1 }));
    t.match(ben, { data: [{ nodeId: shared.id, type: "node.created" }], hasMore: true }, "ben sees only what is shared, filtered before the limit");
    const next = await env.run(listChanges({ userId: "ben", workspaceId: "ws1", cursor: ben.nextCursor, limit: 10 }));
    t.match(next, { data: [{ nodeId: shared.id, type: "node.entered_view" }, { nodeId: inside.id }], hasMore: false });
    const tail = await env.run(listChanges({ userId: "ben", workspaceId: "ws1", cursor: next.nextCursor, limit: 10 }));
    t.same(tail.data, [], "nothing new");
    t.equal(tail.nextCursor, next.nextCursor, "the cursor is kept, never null");
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "later" }));
    const later = await env.run(listChanges({ userId: "ben", workspaceId: "ws1", cursor: tail.nextCursor, limit: 10 }));
    t.match(later.data.map((c) => c.node?.name), ["later"], "a kept cursor reads later changes");
    t.match(await env.attempt(listChanges({ userId: "ben", workspaceId: "ws1", cursor: "garbage", limit: 10 })), { ok: false, error: { _tag: "InvalidCursor" } });
  }),
);

t.test("the change log is append-only and its sequence strictly increases per workspace (database rules)", (t) =>
  forEachFilesDialect(t, "change log rules", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "a" }));
    await t.rejects(db.db.updateTable("fs_changes").set({ type: "node.moved" }).execute(), "no update");
    await t.rejects(db.db.deleteFrom("fs_changes").execute(), "no delete");
    const time = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
    await t.rejects(
      db.db.insertInto("fs_changes").values({ workspace_id: "ws1", seq: 1, node_id: root, type: "node.renamed", version_id: null, actor_id: "x", created_at: time }).execute(),
      "a used sequence number is refused",
    );
    await t.rejects(
      db.db.insertInto("fs_changes").values({ workspace_id: "ws1", seq: 0, node_id: root, type: "node.renamed", version_id: null, actor_id: "x", created_at: time }).execute(),
      "a lower one too",
    );
  }),
);

t.test("a change cursor older than the retention window answers cursor_expired with a restart point", (t) =>
  forEachFilesDialect(t, "cursor window", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "a" }));
    const start = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: null, limit: 1 }));
    for (const name of ["b", "c"]) await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name }));
    await db.db.updateTable("fs_drives").set({ pruned_through_seq: 2 }).where("workspace_id", "=", "ws1").execute();
    const r = await env.attempt(listChanges({ userId: "ann", workspaceId: "ws1", cursor: start.nextCursor, limit: 10 }));
    t.match(r, { ok: false, error: { code: "cursor_expired" } });
    if (!r.ok && r.error._tag === "CursorExpired") {
      const restart = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: r.error.restartCursor, limit: 10 }));
      t.same(restart.data, [], "the restart point is the end of the log");
      await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "d" }));
      const after = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: restart.nextCursor, limit: 10 }));
      t.same(after.data.map((c) => c.node?.name), ["d"], "and later changes follow from it");
    }
  }),
);

/**
 * Runs `command` with `between` committed after its access check and before its transaction: the
 * first transaction the command opens first runs `between` (its own transaction, committed).
 */
const committedBeforeTransaction = <A, E>(command: Effect.Effect<A, E, FilesServices>, between: Effect.Effect<unknown, unknown, FilesServices>) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions;
    const committed = Effect.provide(Effect.orDie(between), yield* Effect.context<FilesServices>());
    let ran = false;
    const run: Transactions["run"] = (effect) =>
      Effect.suspend(() => {
        if (ran) return transactions.run(effect);
        ran = true;
        return Effect.zipRight(committed, transactions.run(effect));
      });
    const result = yield* command.pipe(Effect.provideService(Transactions, { ...transactions, run }));
    if (!ran) return yield* Effect.die(new Error("the command opened no transaction"));
    return result;
  });

t.test("ACL checks under the drive lock: access revoked or lowered after a command's check, before its transaction, answers as the route does (404, or 403 where still seen) and changes nothing", (t) =>
  forEachFilesDialect(t, "revoked in between", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cal"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    const target = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "target" }));
    const grant = (nodeId: string, role: "editor" | "owner" = "editor") => env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId, granteeId: "ben", role }));
    const revoke = (nodeId: string) => revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId, granteeId: "ben" });
    // Each claim on a node of its own in `shared`, so one that goes through leaves the others as they were.
    const fresh = (name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name }));
    const node = (id: string) => db.db.selectFrom("fs_nodes").select(["parent_id", "name", "trashed_at", "version"]).where("id", "=", id).executeTakeFirstOrThrow();
    const ben = { userId: "ben", workspaceId: "ws1" };
    const notFound = { ok: false, error: { _tag: "NotFound" } };

    const cases: ReadonlyArray<[string, string, (id: string) => Effect.Effect<unknown, unknown, FilesServices>]> = [
      ["a trash below the root", shared.id, (id) => trashNode({ ...ben, nodeId: id })],
      ["a rename below the root", shared.id, (id) => moveNode({ ...ben, nodeId: id, expectedVersion: 1, name: "renamed", parentId: null })],
      ["a move of a node no longer seen", shared.id, (id) => moveNode({ ...ben, nodeId: id, expectedVersion: 1, name: null, parentId: target.id })],
      ["a move into a destination no longer seen", target.id, (id) => moveNode({ ...ben, nodeId: id, expectedVersion: 1, name: null, parentId: target.id })],
      ["a create in a folder no longer seen", shared.id, (id) => createFolder({ ...ben, parentId: id, name: "new" })],
    ];
    for (const [i, [name, revoked, command]] of cases.entries()) {
      const subject = await fresh(`n${i}`);
      await grant(shared.id);
      await grant(target.id);
      const before = await node(subject.id);
      t.match(await env.attempt(committedBeforeTransaction(command(subject.id), revoke(revoked))), notFound, `${name} answers NotFound`);
      t.same(await node(subject.id), before, `${name} changes nothing`);
    }
    const created = await db.db.selectFrom("fs_nodes").select("id").where("name", "=", "new").execute();
    t.same(created, [], "no folder was created");

    // An upload opened in a folder no longer seen: no session, no reservation, no part grants.
    await grant(shared.id);
    const opening = createUpload({ ...ben, parentId: shared.id, name: "u.txt", sizeBytes: 1, sha256: sha256("u"), contentType: "text/plain", nodeId: null, partSha256: null });
    t.match(await env.attempt(committedBeforeTransaction(opening, revoke(shared.id))), notFound, "an upload opened in a folder no longer seen answers NotFound");
    t.same(await db.db.selectFrom("fs_upload_sessions").select("id").where("created_by", "=", "ben").execute(), [], "and opens no session");
    t.equal(Number((await db.db.selectFrom("fs_drives").select("reserved_bytes").where("workspace_id", "=", "ws1").executeTakeFirstOrThrow()).reserved_bytes), 0, "nor reserves bytes");

    // A restore: ben trashes with access, then loses it before his restore's transaction.
    const r = await fresh("r");
    await grant(shared.id);
    await env.run(trashNode({ ...ben, nodeId: r.id }));
    const trashed = await node(r.id);
    t.match(await env.attempt(committedBeforeTransaction(restoreNode({ ...ben, nodeId: r.id }), revoke(shared.id))), notFound, "a restore below the root answers NotFound");
    t.same(await node(r.id), trashed, "and restores nothing");

    // A version restore: the same check under the lock.
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "f.txt", bytes: bytesOf("one") });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "f.txt", bytes: bytesOf("two"), nodeId: v1.nodeId });
    const versions = () => db.db.selectFrom("fs_file_versions").select("id").where("node_id", "=", v1.nodeId).execute();
    await grant(shared.id);
    t.match(await env.attempt(committedBeforeTransaction(restoreVersion({ ...ben, nodeId: v1.nodeId, versionId: v1.id }), revoke(shared.id))), notFound, "a version restore answers NotFound");
    t.equal((await versions()).length, 2, "and adds no version");

    // Sharing: an owner whose grant is revoked in between neither grants nor revokes.
    const s = await fresh("s");
    await grant(shared.id, "owner");
    await env.run(grantAccess({ ...ben, nodeId: s.id, granteeId: "cal", role: "viewer" }));
    const grantsOf = () => db.db.selectFrom("fs_acl_entries").select(["user_id", "role"]).where("node_id", "=", s.id).orderBy("user_id").execute();
    const aclBefore = await grantsOf();
    t.match(await env.attempt(committedBeforeTransaction(grantAccess({ ...ben, nodeId: s.id, granteeId: "cal", role: "owner" }), revoke(shared.id))), notFound, "a grant answers NotFound");
    await grant(shared.id, "owner");
    t.match(await env.attempt(committedBeforeTransaction(revokeAccess({ ...ben, nodeId: s.id, granteeId: "cal" }), revoke(shared.id))), notFound, "a revocation answers NotFound");
    t.same(await grantsOf(), aclBefore, "the grants on the node are as they were");
    await grant(shared.id, "owner");
    const linking = createShareLink({ ...ben, nodeId: s.id, expiresAt: null, allowDownload: true });
    t.match(await env.attempt(committedBeforeTransaction(linking, revoke(shared.id))), notFound, "a share link's creation answers NotFound");
    t.same(await db.db.selectFrom("fs_share_links").select("id").where("created_by", "=", "ben").execute(), [], "and creates no link");
    const { link } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: s.id, expiresAt: null, allowDownload: true }));
    await grant(shared.id, "owner");
    t.match(await env.attempt(committedBeforeTransaction(revokeShareLink({ ...ben, nodeId: s.id, linkId: link.id }), revoke(shared.id))), notFound, "a share link's revocation answers NotFound");
    t.match(await db.db.selectFrom("fs_share_links").select("revoked_at").where("id", "=", link.id).executeTakeFirstOrThrow(), { revoked_at: null }, "and leaves the link live");

    // A grantee removed from the workspace in between is no member to grant to.
    const leaving = Effect.sync(() => env.directory.set("ws1", "dan", null));
    env.directory.set("ws1", "dan", "member");
    const toDan = grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: s.id, granteeId: "dan", role: "viewer" });
    t.match(await env.attempt(committedBeforeTransaction(toDan, leaving)), { ok: false, error: { _tag: "ValidationFailed" } }, "a grant to a member removed in between is refused");
    t.same(await db.db.selectFrom("fs_acl_entries").select("user_id").where("user_id", "=", "dan").execute(), [], "and writes no grant");

    // A demotion in between: the caller still sees the node, so the answer is the route's 403.
    const d = await fresh("d");
    await grant(shared.id);
    const demote = grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" });
    const stillSeen = await node(d.id);
    t.match(await env.attempt(committedBeforeTransaction(trashNode({ ...ben, nodeId: d.id }), demote)), { ok: false, error: { _tag: "Forbidden" } }, "a trash by a demoted editor is Forbidden");
    t.same(await node(d.id), stillSeen, "and trashes nothing");

    // A legal hold: an admin demoted in between (the membership is not the drive's, but read under its lock).
    const held = () => db.db.selectFrom("fs_nodes").select("legal_hold").where("id", "=", d.id).executeTakeFirstOrThrow();
    const holdBefore = await held();
    const demoted = Effect.sync(() => env.directory.set("ws1", "ann", "member"));
    t.match(
      await env.attempt(committedBeforeTransaction(setLegalHold({ userId: "ann", workspaceId: "ws1", nodeId: d.id, hold: true, reason: "audit" }), demoted)),
      { ok: false, error: { _tag: "Forbidden" } },
      "a legal hold by a demoted admin is Forbidden",
    );
    t.same(await held(), holdBefore, "and places none");

    // A quota set by an admin demoted in between (ann is a member since the legal hold's claim).
    env.directory.set("ws1", "ann", "admin");
    const quotaBefore = (await env.run(getDrive("ann", "ws1"))).quotaBytes;
    t.match(await env.attempt(committedBeforeTransaction(setQuota("ann", "ws1", quotaBefore + 1), demoted)), { ok: false, error: { _tag: "Forbidden" } }, "a quota set by a demoted admin is Forbidden");
    t.equal((await env.run(getDrive("ann", "ws1"))).quotaBytes, quotaBefore, "and changes no quota");
  }),
);

t.test("ACL checks under the drive lock for commands that change no namespace: a part report, an audit export and an extraction request by a caller who lost access after their check answer as the route does and record nothing", (t) =>
  forEachFilesDialect(t, "no namespace change", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    const dest = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "dest" }));
    const grant = (nodeId: string, role: "viewer" | "editor") => env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId, granteeId: "ben", role }));
    const revoke = (nodeId: string) => revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId, granteeId: "ben" });
    const ben = { userId: "ben", workspaceId: "ws1" };
    const notFound = { ok: false, error: { _tag: "NotFound" } };
    const forbidden = { ok: false, error: { _tag: "Forbidden" } };

    // An upload ben opened in `shared` as its editor: two parts, none reported.
    await grant(shared.id, "editor");
    const bytes = bytesOf("twenty bytes of data");
    const session = await env.run(
      createUpload({ ...ben, parentId: shared.id, name: "u.bin", sizeBytes: bytes.length, sha256: sha256(bytes), contentType: "application/octet-stream", nodeId: null, partSha256: partChecksums(bytes, 16) }),
    );
    const etags = async () => (await db.db.selectFrom("fs_upload_parts").select(["part_number", "etag"]).where("session_id", "=", session.id).orderBy("part_number").execute()).map((p) => p.etag);
    const report = reportUploadPart({ ...ben, uploadId: session.id, partNumber: 1, etag: '"e1"' });
    t.match(await env.attempt(committedBeforeTransaction(report, revoke(shared.id))), notFound, "a part report by an owner who no longer sees the folder answers NotFound");
    t.same(await etags(), [null, null], "and records no part");
    await grant(shared.id, "editor");
    const demote = grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" });
    t.match(await env.attempt(committedBeforeTransaction(report, demote)), forbidden, "a part report by an owner demoted to viewer answers Forbidden");
    t.same(await etags(), [null, null], "and records no part");
    await grant(shared.id, "editor");
    // A resume is a read: its part grants follow the access it reads, as any read does (no lock).
    const resume = getUpload({ ...ben, uploadId: session.id });
    t.equal((await env.run(resume)).parts.length, 2, "with access back the resume grants both parts");
    await env.run(report);
    t.same(await etags(), ['"e1"', null], "and the report records its part");

    // An extraction request: the archive, or the destination, no longer seen.
    const zip = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "a.zip", bytes: makeZip([{ name: "x.txt", data: "x", method: 0 }]) });
    const extractions = () => db.db.selectFrom("fs_extractions").select("id").where("created_by", "=", "ben").execute();
    const jobs = (kind: string) => db.db.selectFrom("jobs").select("key").where("kind", "=", kind).execute();
    const extracting = requestExtraction({ ...ben, nodeId: zip.nodeId, parentId: dest.id });
    await grant(dest.id, "editor");
    t.match(await env.attempt(committedBeforeTransaction(extracting, revoke(shared.id))), notFound, "an extraction of an archive no longer seen answers NotFound");
    await grant(shared.id, "editor");
    t.match(await env.attempt(committedBeforeTransaction(extracting, revoke(dest.id))), notFound, "an extraction into a destination no longer seen answers NotFound");
    t.same(await extractions(), [], "and records no extraction");
    t.same(await jobs("files.archive_extraction"), [], "nor queues its job");
    await grant(dest.id, "editor");
    const queued = await env.run(extracting);
    t.same(await jobs("files.archive_extraction"), [{ key: queued.id }], "with access back the request queues its job");

    // An audit export asked by an admin demoted, or removed, in between.
    const exports = () => db.db.selectFrom("fs_audit_exports").select("id").execute();
    const exporting = requestAuditExport({ userId: "ann", workspaceId: "ws1" });
    t.match(await env.attempt(committedBeforeTransaction(exporting, Effect.sync(() => env.directory.set("ws1", "ann", "member")))), forbidden, "an audit export by an admin demoted in between answers Forbidden");
    env.directory.set("ws1", "ann", "admin");
    t.match(await env.attempt(committedBeforeTransaction(exporting, Effect.sync(() => env.directory.set("ws1", "ann", null)))), notFound, "an audit export by an admin removed in between answers NotFound");
    t.same(await exports(), [], "and records no export");
    t.same(await jobs("files.audit_export"), [], "nor queues its job");
    env.directory.set("ws1", "ann", "admin");
    const asked = await env.run(exporting);
    t.same(await jobs("files.audit_export"), [{ key: asked.id }], "an admin's request queues its job");
  }),
);

t.test("ACL checks under the drive lock hold the caller's membership: a removal committed before the lock answers NotFound, and one tried while a command (a trash, an upload's completion) holds it waits for its commit (Postgres)", (t) =>
  forEachFilesDialect(t, "membership held", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    // The reference server's membership (the project module's table), read by the commands below.
    const time = db.features.timeToDb(new Date());
    await db.db.insertInto("pm_workspaces").values({ id: "ws1", name: "ws1", created_by: "ann", created_at: time }).execute();
    await db.db.insertInto("pm_workspace_members").values([{ workspace_id: "ws1", user_id: "ann", role: "owner", created_at: time }, { workspace_id: "ws1", user_id: "ben", role: "member", created_at: time }]).execute();
    const directory = makeSqlProjectsWorkspaceDirectory(db);
    const asServer = <A, E>(effect: Effect.Effect<A, E, FilesServices>, port: WorkspaceDirectory = directory) => effect.pipe(Effect.provideService(WorkspaceDirectory, port));
    const shared = await env.run(asServer(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" })));
    await env.run(asServer(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "editor" })));
    const [a, b] = [await env.run(asServer(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "a" }))), await env.run(asServer(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "b" })))];
    const trashedAt = async (id: string) => (await db.db.selectFrom("fs_nodes").select("trashed_at").where("id", "=", id).executeTakeFirstOrThrow()).trashed_at;
    const removeBen = () => db.db.deleteFrom("pm_workspace_members").where("workspace_id", "=", "ws1").where("user_id", "=", "ben").execute();

    if (db.dialect === "postgres") {
      // While ben's command holds his membership, a removal on another connection waits (here: gives up after its lock timeout).
      const tryRemoval = () =>
        db.db
          .transaction()
          .execute(async (trx) => {
            await sql`SET LOCAL lock_timeout = '150ms'`.execute(trx);
            await trx.deleteFrom("pm_workspace_members").where("workspace_id", "=", "ws1").where("user_id", "=", "ben").execute();
          })
          .then(
            () => "removed",
            (e: { code?: string }) => (e.code === "55P03" ? "waited" : Promise.reject(e)),
          );
      /** The server's directory that tries the removal right after ben's first membership read under the lock; `tried.removal` says how it went. */
      const probing = (tried: { removal?: string }): WorkspaceDirectory => ({
        ...directory,
        standingHeld: (workspaceId, userId) =>
          Effect.tap(directory.standingHeld!(workspaceId, userId), () =>
            userId === "ben" && tried.removal === undefined ? Effect.promise(async () => void (tried.removal = await tryRemoval())) : Effect.void,
          ),
      });
      const trashing: { removal?: string } = {};
      t.equal(await env.run(asServer(trashNode({ userId: "ben", workspaceId: "ws1", nodeId: a.id }), probing(trashing))), 1, "the trash commits");
      t.equal(trashing.removal, "waited", "the removal tried after its check under the lock waited for its commit");
      t.not(await trashedAt(a.id), null);
      // An upload's completion too: its check under the lock holds the owner's membership.
      const bytes = bytesOf("done");
      const session = await uploadParts(env, { userId: "ben", workspaceId: "ws1", parentId: shared.id, name: "c.txt", bytes });
      const completing: { removal?: string } = {};
      t.match(await env.run(asServer(completeUpload({ userId: "ben", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }), probing(completing))), { status: "quarantined" }, "the completion commits");
      t.equal(completing.removal, "waited", "the removal tried after the completion's check under the lock waited for its commit");
    } else t.pass("SQLite runs one writer at a time: a removal cannot commit inside a command's transaction");

    // A removal committed after the check before the transaction: the check under the lock sees it.
    const removed = await env.attempt(committedBeforeTransaction(asServer(trashNode({ userId: "ben", workspaceId: "ws1", nodeId: b.id })), Effect.promise(removeBen)));
    t.match(removed, { ok: false, error: { _tag: "NotFound" } }, "a trash by a member removed in between answers NotFound");
    t.equal(await trashedAt(b.id), null, "and trashes nothing");
  }),
);
