/**
 * Zip extraction (spec should-have: "archive extraction for a zip into a folder, guarding path
 * traversal, decompression bombs (total size and ratio) and file count"): real archives built
 * in the test, unpacked by the job into quarantined versions that go through the normal scan;
 * hostile archives end `failed` with their reason, leaving no node, object or reservation.
 */
import t from "tap";
import { Effect } from "effect";
import { createFolder } from "../../core/files/CreateFolder.js";
import { getDrive } from "../../core/files/Drives.js";
import { runExtraction } from "../../core/files/ExtractArchive.js";
import { getExtraction, requestExtraction } from "../../core/files/RequestExtraction.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { reconcileQuota } from "../../core/files/ReconcileQuota.js";
import { scanVersion } from "../../core/files/ScanVersion.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import type { FilesSettings } from "../../ports/files/FilesSettings.js";
import { bytesOf, driveCounters, filesRuntime, forEachFilesDialect, publishFile, uploadFile, workspaceWithDrive, type FilesEnv } from "./support.js";
import { makeZip, type ZipEntry } from "./zip.js";

/** A workspace with a published zip `archive.zip` at the root; answers what a test needs. */
const withArchive = async (env: FilesEnv, entries: ReadonlyArray<ZipEntry>) => {
  const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
  const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "archive.zip", bytes: makeZip(entries) });
  return { root, archiveId: archive.nodeId, archiveBytes: Number((await driveCounters(env, "ws1")).used) };
};

/** Requests and runs an extraction as ann; answers the stored extraction. */
const extract = async (env: FilesEnv, archiveId: string, parentId: string | null = null) => {
  const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archiveId, parentId }));
  await env.run(runExtraction("ws1", requested.id));
  return env.run(getExtraction({ userId: "ann", workspaceId: "ws1", extractionId: requested.id }));
};

const nodeNames = async (env: FilesEnv) =>
  (await env.db.db.selectFrom("fs_nodes").select(["name", "kind"]).where("workspace_id", "=", "ws1").where("parent_id", "is not", null).execute())
    .map((r) => `${String(r.kind)}:${String(r.name)}`)
    .sort();

const extractedObjects = async (env: FilesEnv, extractionId: string) =>
  (await env.run(env.store.stat(`files/ws1/extractions/${extractionId}/entry-0`))) === null ? 0 : 1;

t.test("a zip unpacks into the folder: folders merged, taken names suffixed, every file a quarantined version queued for its scan, quota exact", (t) =>
  forEachFilesDialect(t, "extract", async (t, db) => {
    const env = filesRuntime(t, db);
    const readme = "read me first ".repeat(20);
    const { root, archiveId, archiveBytes } = await withArchive(env, [
      { name: "docs/", method: 0 },
      { name: "docs/readme.txt", data: readme, method: 8 },
      { name: "docs/img/dot.bin", data: "0123456789", method: 0 },
      { name: "notes.txt", data: "taken name", method: 0 },
      { name: "empty/" },
    ]);
    const dest = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "dest" }));
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: dest.id, name: "docs" }));
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: dest.id, name: "notes.txt", bytes: bytesOf("already here") });
    const before = await driveCounters(env, "ws1");

    const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archiveId, parentId: dest.id }));
    t.match(requested, { status: "queued", parentId: dest.id, archiveNodeId: archiveId });
    const job = await db.db.selectFrom("jobs").select(["kind", "key"]).where("kind", "=", "files.archive_extraction").execute();
    t.same(job.map((j) => j.key), [requested.id], "one job, keyed by the extraction");
    t.equal(await env.run(runExtraction("ws1", requested.id)), "succeeded");
    const done = await env.run(getExtraction({ userId: "ann", workspaceId: "ws1", extractionId: requested.id }));
    t.match(done, { status: "succeeded", fileCount: 3, folderCount: 2, extractedBytes: readme.length + 10 + 10, failureCode: null });
    t.match(await env.attempt(getExtraction({ userId: "bob", workspaceId: "ws1", extractionId: requested.id })), { ok: false, error: { _tag: "NotFound" } }, "only its requester reads it");

    t.same(
      await nodeNames(env),
      ["file:archive.zip", "file:dot.bin", "file:notes (2).txt", "file:notes.txt", "file:readme.txt", "folder:dest", "folder:docs", "folder:empty", "folder:img"],
      "docs merged into the existing folder, notes.txt suffixed",
    );
    const made = await db.db
      .selectFrom("fs_file_versions as v")
      .innerJoin("fs_nodes as n", "n.id", "v.node_id")
      .select(["v.id", "v.status", "v.content_type", "n.name", "n.current_version_id"])
      .where("n.name", "in", ["readme.txt", "dot.bin", "notes (2).txt"])
      .orderBy("n.name")
      .execute();
    t.same(made.map((v) => [v.name, v.status, v.current_version_id]), [["dot.bin", "quarantined", null], ["notes (2).txt", "quarantined", null], ["readme.txt", "quarantined", null]], "never published unscanned");
    t.equal(made.find((v) => v.name === "readme.txt")?.content_type, "text/plain");
    const scans = await db.db.selectFrom("jobs").select("key").where("kind", "=", "files.version_scan").where("key", "in", made.map((v) => String(v.id))).execute();
    t.equal(scans.length, 3, "each version's scan is queued");
    for (const v of made) t.equal(await env.run(scanVersion("ws1", String(v.id), { attempt: 1, maxAttempts: 3 })), "published", `${String(v.name)} published by its scan`);
    t.same(await driveCounters(env, "ws1"), { ...before, used: before.used + readme.length + 20, reserved: 0 }, "the reservation became used bytes");
    t.match(await env.run(reconcileQuota("ws1")), { drift: false });
    t.ok(archiveBytes > 0);
    t.equal(await env.run(runExtraction("ws1", requested.id)), "succeeded", "running it again changes nothing");
    t.equal((await nodeNames(env)).length, 9);
  }),
);

t.test("entries that leave the folder are refused: .., absolute paths, backslashes, drive letters, NUL, symbolic links", (t) =>
  forEachFilesDialect(t, "traversal", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const cases: ReadonlyArray<readonly [string, ZipEntry, string]> = [
      ["dot-dot", { name: "../evil.txt", data: "x" }, "unsafe_path"],
      ["nested dot-dot", { name: "a/../../evil.txt", data: "x" }, "unsafe_path"],
      ["absolute", { name: "/etc/evil.txt", data: "x" }, "unsafe_path"],
      ["backslash", { name: "a\\..\\evil.txt", data: "x" }, "unsafe_path"],
      ["drive letter", { name: "C:/evil.txt", data: "x" }, "unsafe_path"],
      ["NUL", { name: "a/evil\u0000.txt", data: "x" }, "unsafe_path"],
      ["empty segment", { name: "a//evil.txt", data: "x" }, "invalid_name"],
      ["symbolic link", { name: "link", data: "/etc/passwd", symlink: true }, "unsupported_entry"],
    ];
    for (const [label, entry, code] of cases) {
      const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: `${label}.zip`, bytes: makeZip([{ name: "fine.txt", data: "ok" }, entry]) });
      const before = await driveCounters(env, "ws1");
      const done = await extract(env, archive.nodeId);
      t.match(done, { status: "failed", failureCode: code, fileCount: 0 }, `${label}: ${code}`);
      t.same(await driveCounters(env, "ws1"), before, `${label}: nothing reserved or used`);
      t.equal(await extractedObjects(env, done.id), 0, `${label}: nothing written`);
    }
    t.same((await nodeNames(env)).filter((n) => !n.endsWith(".zip")), [], "not even the harmless entry was made");
  }),
);

t.test("decompression bombs are refused: by ratio, by total content, and by inflated bytes beyond a lying header", (t) =>
  forEachFilesDialect(t, "bombs", async (t, db) => {
    const settings: Partial<FilesSettings> = { extractRatioMinBytes: 1_000, extractMaxTotalBytes: 3_000 };
    const env = filesRuntime(t, db, settings);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const zeros = (n: number) => new Uint8Array(n);
    const noise = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7919 + 13) % 251);
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<ZipEntry>, string]> = [
      ["ratio", [{ name: "zeros.bin", data: zeros(4_000), method: 8 }], "compression_ratio"],
      ["total", [{ name: "a.bin", data: noise(1_600) }, { name: "b.bin", data: noise(1_600) }], "content_too_large"],
      ["lying header", [{ name: "small.bin", data: zeros(3_000), method: 8, declaredSize: 10 }], "size_mismatch"],
    ];
    for (const [label, entries, code] of cases) {
      const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: `${label}.zip`, bytes: makeZip(entries) });
      const before = await driveCounters(env, "ws1");
      t.match(await extract(env, archive.nodeId), { status: "failed", failureCode: code }, `${label}: ${code}`);
      t.same(await driveCounters(env, "ws1"), before, `${label}: no reservation left`);
    }
    t.same((await nodeNames(env)).filter((n) => !n.endsWith(".zip")), []);
  }),
);

t.test("an archive with more entries than allowed is refused, and one whose content exceeds the free quota ends quota_exceeded", (t) =>
  forEachFilesDialect(t, "count and quota", async (t, db) => {
    const env = filesRuntime(t, db, { extractMaxEntries: 3, defaultQuotaBytes: 4_000 });
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const many = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "many.zip", bytes: makeZip(["a", "b", "c", "d"].map((name) => ({ name, data: name }))) });
    t.match(await extract(env, many.nodeId), { status: "failed", failureCode: "too_many_entries" });
    const big = new Uint8Array(1_950).fill(65);
    const heavy = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "heavy.zip", bytes: makeZip([{ name: "a.txt", data: big, method: 8 }, { name: "b.txt", data: big, method: 8 }]) });
    const before = await driveCounters(env, "ws1");
    t.ok(before.quota - before.used < 3_900, "less free space than the archive's content");
    t.match(await extract(env, heavy.nodeId), { status: "failed", failureCode: "quota_exceeded" });
    t.same(await driveCounters(env, "ws1"), before, "nothing held");
    t.match(await env.run(reconcileQuota("ws1")), { drift: false });
  }),
);

t.test("extracting needs the editor role on the archive and the destination, a published archive and a folder", (t) =>
  forEachFilesDialect(t, "extract access", async (t, db) => {
    const env = filesRuntime(t, db);
    const { root, archiveId } = await withArchive(env, [{ name: "a.txt", data: "a" }]);
    const viewerOnly = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: archiveId, granteeId: "bob", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: viewerOnly.id, granteeId: "bob", role: "viewer" }));
    const ask = (userId: string, nodeId: string, parentId: string | null = null) => env.attempt(requestExtraction({ userId, workspaceId: "ws1", nodeId, parentId }));
    t.match(await ask("bob", archiveId), { ok: false, error: { _tag: "Forbidden" } }, "a viewer of the archive");
    t.match(await ask("carl", archiveId), { ok: false, error: { _tag: "NotFound" } }, "a non-member");
    t.match(await ask("ann", archiveId, archiveId), { ok: false, error: { code: "not_a_folder" } });
    const pending = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "pending.zip", bytes: makeZip([{ name: "x", data: "x" }]) });
    t.match(await ask("ann", pending.nodeId), { ok: false, error: { code: "no_published_version" } }, "a quarantined archive is not read");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: archiveId, granteeId: "bob", role: "editor" }));
    t.match(await ask("bob", archiveId, viewerOnly.id), { ok: false, error: { _tag: "Forbidden" } }, "a viewer of the destination");
  }),
);

t.test("an extraction checks the requester's access to the destination again under the drive lock: revoked while its objects were written, it ends destination_unavailable and leaves nothing", (t) =>
  forEachFilesDialect(t, "extract revoked", async (t, db) => {
    const env = filesRuntime(t, db);
    const { archiveId } = await withArchive(env, [{ name: "a.txt", data: "a" }]);
    const team = await env.run(createFolder({ userId: "adm", workspaceId: "ws1", parentId: (await env.run(getDrive("adm", "ws1"))).rootNodeId, name: "team" }));
    await env.run(grantAccess({ userId: "adm", workspaceId: "ws1", nodeId: team.id, granteeId: "ann", role: "editor" }));
    const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archiveId, parentId: team.id }));
    // The revocation commits while the job writes the entries' objects: after its first check, before its last transaction.
    const store = env.store;
    let revoked = false;
    const revokingStore: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
      put: (key: string, content: Parameters<ObjectStore["put"]>[1]) =>
        Effect.suspend(() => {
          if (revoked) return store.put(key, content);
          revoked = true;
          return Effect.zipRight(
            Effect.orDie(revokeAccess({ userId: "adm", workspaceId: "ws1", nodeId: team.id, granteeId: "ann" })).pipe(Effect.provideService(ObjectStore, store)),
            store.put(key, content),
          );
        }),
    });
    t.equal(await env.run(runExtraction("ws1", requested.id).pipe(Effect.provideService(ObjectStore, revokingStore))), "failed");
    t.ok(revoked, "the revocation committed while the objects were written");
    t.match(await env.run(getExtraction({ userId: "ann", workspaceId: "ws1", extractionId: requested.id })), { status: "failed", failureCode: "destination_unavailable", reservedBytes: 0 });
    t.same(await db.db.selectFrom("fs_nodes").select("id").where("parent_id", "=", team.id).execute(), [], "no node in the destination");
    t.equal(await extractedObjects(env, requested.id), 0, "its objects removed");
    t.equal((await driveCounters(env, "ws1")).reserved, 0, "its reservation released");
  }),
);

t.test("extractions and uploads racing for the last free bytes never pass the quota, and the counters stay exact", (t) =>
  forEachFilesDialect(t, "extract quota race", async (t, db) => {
    const env = filesRuntime(t, db, { defaultQuotaBytes: 3_000 });
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const content = new Uint8Array(1_000).fill(66);
    const archives = [];
    for (let i = 0; i < 3; i++) {
      archives.push(await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: `a${i}.zip`, bytes: makeZip([{ name: `x${i}.bin`, data: content, method: 8 }]) }));
    }
    const before = await driveCounters(env, "ws1");
    const requested = await Promise.all(archives.map((a) => env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: a.nodeId, parentId: null }))));
    const statuses = await Promise.all(requested.map((r) => env.run(runExtraction("ws1", r.id))));
    const succeeded = statuses.filter((s) => s === "succeeded").length;
    t.equal(succeeded + statuses.filter((s) => s === "failed").length, 3);
    t.equal(Math.floor((before.quota - before.used) / 1_000), 2, "room for two of the three");
    t.equal(succeeded, 2, "exactly those that fit");
    const after = await driveCounters(env, "ws1");
    t.ok(after.used + after.reserved <= after.quota, "never over the quota");
    t.same(after, { ...before, used: before.used + succeeded * 1_000 }, "the counters are exact");
    t.match(await env.run(reconcileQuota("ws1")), { drift: false });
  }),
);
