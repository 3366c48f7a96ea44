/**
 * Trash retention purge (spec: "trash purge follows retention and legal hold"): a trashed
 * subtree past retention loses everything that holds content (its nodes stay as stubs for the
 * change window), its bytes released once and its objects removed after commit, audited; a subtree with a held node survives until the hold
 * is released; an open upload into it defers the purge; an object another version still
 * references is kept; a rerun finds nothing; objects a failed removal left are removed by the job
 * scheduled with the deletion.
 */
import { Effect } from "effect";
import t from "tap";
import { objectRemovalJob } from "../../core/files/ObjectRemoval.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { setLegalHold } from "../../core/files/LegalHold.js";
import { reconcileQuota } from "../../core/files/ReconcileQuota.js";
import { restoreNode } from "../../core/files/RestoreNode.js";
import { restoreVersion } from "../../core/files/RestoreVersion.js";
import { createShareLink } from "../../core/files/ShareLinks.js";
import { grantAccess } from "../../core/files/Permissions.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { sweepTrash } from "../../core/files/TrashPurgeSweep.js";
import { at, runningJob } from "../worker/fixtures.js";
import { bytesOf, driveCounters, filesRuntime, forEachFilesDialect, publishFile, uploadParts, workspaceWithDrive, type FilesEnv } from "./support.js";

const dayMs = 86_400_000;
const firstPage = { day: "2026-01-01", after: null };

/** Runs one purge page as if `days` days had passed. */
const sweepAfterDays = (env: FilesEnv, days: number) => env.run(at(Date.now() + days * dayMs)(sweepTrash(firstPage)));

const objectKeysOf = async (env: FilesEnv, nodeIds: ReadonlyArray<string>) =>
  (await env.db.db.selectFrom("fs_file_versions").select("object_key").where("node_id", "in", [...nodeIds]).execute()).map((r) => String(r.object_key));

const countWhere = async (env: FilesEnv, table: string, column: string, ids: ReadonlyArray<string>) =>
  Number((await env.db.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).where(column, "in", [...ids]).executeTakeFirstOrThrow()).n);

/** Nodes of `ids` not reduced to stubs by a purge. */
const countLive = async (env: FilesEnv, ids: ReadonlyArray<string>) =>
  Number((await env.db.db.selectFrom("fs_nodes").select((eb) => eb.fn.countAll().as("n")).where("id", "in", [...ids]).where("purged_at", "is", null).executeTakeFirstOrThrow()).n);

t.test("a trashed subtree past retention is deleted with its versions, grants and links; used bytes drop once, objects go, an audit entry stays; a rerun finds nothing", (t) =>
  forEachFilesDialect(t, "trash purge", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const sub = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "sub" }));
    const a1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "a.txt", bytes: bytesOf("first version of a") });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "a.txt", nodeId: a1.nodeId, bytes: bytesOf("second version of a, longer") });
    await env.run(restoreVersion({ userId: "ann", workspaceId: "ws1", nodeId: a1.nodeId, versionId: a1.id }));
    const b = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: sub.id, name: "b.txt", bytes: bytesOf("bee") });
    const keep = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "keep.txt", bytes: bytesOf("stays") });
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: docs.id, granteeId: "bob", role: "viewer" }));
    await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: docs.id, expiresAt: null, allowDownload: true }));
    const subtree = [docs.id, sub.id, a1.nodeId, b.nodeId];
    const purgedKeys = await objectKeysOf(env, subtree);
    t.equal(new Set(purgedKeys).size, 3, "four versions over three objects (the restored one shares its original's)");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 18 + 27 + 3 + 5, reserved: 0 });

    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    t.same(await sweepAfterDays(env, 29), [], "not yet past the 30 days");
    t.equal(await countWhere(env, "fs_nodes", "id", subtree), 4, "kept within retention");

    const outcomes = await sweepAfterDays(env, 31);
    t.match(outcomes, [{ nodeId: docs.id, outcome: "purged", nodes: 4, versions: 4, releasedBytes: 18 + 27 + 3 }]);
    for (const [table, column] of [["fs_file_versions", "node_id"], ["fs_share_links", "node_id"]] as const) {
      t.equal(await countWhere(env, table, column, subtree), 0, `no ${table} row of the subtree is left`);
    }
    t.equal(await countLive(env, subtree), 0, "its nodes are only stubs, kept for the change feed's tombstones (purge-keeps-change-window.test.ts)");
    t.equal(await countWhere(env, "fs_upload_sessions", "node_id", subtree), 0, "nor its upload sessions");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 5, reserved: 0 }, "only keep.txt's bytes remain counted");
    for (const key of new Set(purgedKeys)) t.equal(await env.run(env.store.stat(key)), null, `object ${key} removed`);
    const [keepKey] = await objectKeysOf(env, [keep.nodeId]);
    t.not(await env.run(env.store.stat(keepKey!)), null, "a live file's object stays");
    t.match(await env.run(reconcileQuota("ws1")), { drift: false }, "counters agree with the rows");
    const audit = await db.db.selectFrom("fs_audit").selectAll().where("action", "=", "node.purged").execute();
    t.match(audit, [{ target_id: docs.id, actor_id: "system:files-trash-retention" }], "the purge is audited");

    t.same(await sweepAfterDays(env, 31), [], "a rerun finds nothing");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 5, reserved: 0 }, "and releases nothing twice");
  }),
);

t.test("a subtree with a node under legal hold survives every run; once released, the next run purges it", (t) =>
  forEachFilesDialect(t, "held purge", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const inner = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "inner" }));
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: inner.id, name: "evidence.txt", bytes: bytesOf("evidence") });
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    await env.run(setLegalHold({ userId: "adm", workspaceId: "ws1", nodeId: inner.id, hold: true, reason: "litigation 42" }));
    t.match(await sweepAfterDays(env, 40), [{ nodeId: docs.id, outcome: "held" }], "a held node keeps the whole subtree");
    t.match(await sweepAfterDays(env, 400), [{ nodeId: docs.id, outcome: "held" }], "however old");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 8, reserved: 0 }, "its bytes stay counted");
    await env.run(setLegalHold({ userId: "adm", workspaceId: "ws1", nodeId: inner.id, hold: false, reason: "case closed" }));
    t.match(await sweepAfterDays(env, 40), [{ nodeId: docs.id, outcome: "purged", nodes: 3, releasedBytes: 8 }], "released: purged by the next run");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 });
  }),
);

t.test("an open upload into a trashed folder defers its purge until the session settles", (t) =>
  forEachFilesDialect(t, "busy purge", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "late.txt", bytes: bytesOf("late bytes") });
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    t.match(await sweepAfterDays(env, 31), [{ nodeId: docs.id, outcome: "busy" }]);
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 10 }, "the reservation is the session's to settle");
    await env.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    t.match(await sweepAfterDays(env, 31), [{ nodeId: docs.id, outcome: "purged", nodes: 1 }]);
    t.equal(await countWhere(env, "fs_upload_sessions", "id", [session.id]), 0, "the settled session went with it");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 });
  }),
);

t.test("an object another live version still references is kept, and its bytes stay counted", (t) =>
  forEachFilesDialect(t, "shared object", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const gone = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "copy.txt", bytes: bytesOf("shared bytes") });
    const live = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "live.txt", bytes: bytesOf("live") });
    const [sharedKey] = await objectKeysOf(env, [gone.nodeId]);
    // A version of the live file that shares the trashed file's object (as a server-side copy would).
    const stored = await db.db.selectFrom("fs_file_versions").selectAll().where("id", "=", gone.id).executeTakeFirstOrThrow();
    await db.db
      .insertInto("fs_file_versions")
      .values({ ...stored, id: "00000000-0000-7000-8000-0000000000aa", node_id: live.nodeId, number: 2, is_current: db.dialect === "postgres" ? false : 0, upload_session_id: null })
      .execute();
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    t.match(await sweepAfterDays(env, 31), [{ outcome: "purged", versions: 1, releasedBytes: 0 }], "the shared object's bytes are not released");
    t.not(await env.run(env.store.stat(sharedKey!)), null, "the shared object is kept");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 12 + 4, reserved: 0 });
    t.match(await env.run(reconcileQuota("ws1")), { drift: false });
  }),
);

t.test("a purge racing a restore of the same subtree: exactly one of them takes effect and the counters stay exact", (t) =>
  forEachFilesDialect(t, "purge race", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const outcomes = { purged: 0, restored: 0 };
    for (let round = 0; round < 6; round++) {
      const folder = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: `race-${round}` }));
      await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "f.txt", bytes: bytesOf(`round ${round}`) });
      await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: folder.id }));
      const before = await driveCounters(env, "ws1");
      const [swept, restored] = await Promise.all([sweepAfterDays(env, 31), env.attempt(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: folder.id }))]);
      const purged = swept.some((o) => o.nodeId === folder.id && o.outcome === "purged");
      t.not(purged, restored.ok, `round ${round}: exactly one took effect`);
      const left = await countLive(env, [folder.id]);
      t.equal(left, purged ? 0 : 1, `round ${round}: the folder is ${purged ? "gone" : "back"}`);
      t.same(await driveCounters(env, "ws1"), { ...before, used: purged ? before.used - 7 : before.used }, `round ${round}: counters exact`);
      outcomes[purged ? "purged" : "restored"]++;
    }
    t.match(await env.run(reconcileQuota("ws1")), { drift: false });
    t.equal(outcomes.purged + outcomes.restored, 6);
  }),
);

t.test("objects the removal after commit failed to delete are removed by the job the purge scheduled with its deletion", (t) =>
  forEachFilesDialect(t, "purge removal retried", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const file = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "a.txt", bytes: bytesOf("bytes to purge") });
    const [key] = await objectKeysOf(env, [file.nodeId]);
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    // The store fails every removal during the purge.
    const failing: ObjectStore = { ...env.store, remove: () => Effect.dieMessage("object store unavailable") };
    const outcomes = await env.run(at(Date.now() + 31 * dayMs)(Effect.provideService(sweepTrash(firstPage), ObjectStore, failing)));
    t.match(outcomes, [{ nodeId: docs.id, outcome: "purged" }]);
    t.not(await env.run(env.store.stat(key!)), null, "the object is still stored");
    const jobs = await db.db.selectFrom("jobs").selectAll().where("kind", "=", objectRemovalJob.kind).execute();
    t.equal(jobs.length, 1, "its removal was scheduled with the deletion");
    const job = jobs[0]!;
    const payload = typeof job.payload === "string" ? JSON.parse(job.payload) : job.payload;
    t.ok(payload.keys.includes(key), "with the object's key");
    await env.run(objectRemovalJob.run(runningJob({ kind: objectRemovalJob.kind, key: job.key, payload })));
    t.equal(await env.run(env.store.stat(key!)), null, "the job removed it");
    await t.resolves(
      env.run(objectRemovalJob.run(runningJob({ kind: objectRemovalJob.kind, key: job.key, payload, attempts: 2 }))),
      "removing again is not an error",
    );
  }),
);

/**
 * Spec (States): trashing a node means "object purge follows retention and legal hold". A legal
 * hold on a folder protects the files inside it: a file trashed out of a held folder (or out of
 * a folder below it) is kept past retention while the hold stands, and purged once released.
 */
t.test("a file trashed from a folder under legal hold is held, not purged, while the hold stands", (t) =>
  forEachFilesDialect(t, "held ancestor", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const held = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "case" }));
    const inner = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: held.id, name: "inner" }));
    const file = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: inner.id, name: "evidence.txt", bytes: bytesOf("evidence") });
    await env.run(setLegalHold({ userId: "adm", workspaceId: "ws1", nodeId: held.id, hold: true, reason: "litigation 43" }));
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: file.nodeId }));
    t.match(await sweepAfterDays(env, 40), [{ nodeId: file.nodeId, outcome: "held" }], "the hold on an ancestor keeps the trashed file");
    t.equal(await countWhere(env, "fs_file_versions", "node_id", [file.nodeId]), 1, "its version stays");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 8, reserved: 0 }, "its bytes stay counted");
    await env.run(setLegalHold({ userId: "adm", workspaceId: "ws1", nodeId: held.id, hold: false, reason: "case closed" }));
    t.match(await sweepAfterDays(env, 40), [{ nodeId: file.nodeId, outcome: "purged", nodes: 1, releasedBytes: 8 }], "released: purged by the next run");
  }),
);
