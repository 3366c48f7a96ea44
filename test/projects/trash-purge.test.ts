/**
 * Spec rule 8 / relationship 5: tasks are soft-deleted and kept for restore and audit, while
 * expired upload staging objects (uploads never completed) are hard-deleted after retention by
 * a durable, self-rescheduling purge job — SQLite and Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { defaultTrashPurgePolicy, runTrashPurge } from "../../core/projects/TrashPurge.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { startFilesServer, uploadAttachment } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

const encode = (s: string) => new TextEncoder().encode(s);
const hour = 60 * 60_000;

forEachDialectConfig(t, `expired staging uploads are hard-deleted after retention; completed ones and trashed tasks stay`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Staging" });
  const bytes = encode("abandoned upload");
  // Uploaded but never completed, and requested but never uploaded.
  const abandoned = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, {
    filename: "a.txt",
    content_type: "text/plain",
    size: bytes.length,
    sha256: (await import("node:crypto")).createHash("sha256").update(bytes).digest("hex"),
  });
  t.equal((await host.transfer(abandoned.body.upload, bytes)).status, 201);
  const neverSent = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "b.txt", content_type: "text/plain", size: 3, sha256: "d".repeat(64) });
  const kept = await uploadAttachment(host, owner, task.body.id, encode("kept"));
  await owner.call("DELETE", `/v1/tasks/${task.body.id}`);

  const scheduled = await host.db.db.selectFrom("jobs").select(["key"]).where("kind", "=", "projects.trash_purge").execute();
  t.ok(scheduled.length >= 1, "requesting an upload schedules the purge");

  const before = await host.run(runTrashPurge());
  t.equal(before.purged, 0, "nothing is purged before retention ends");
  // A purge run whose cutoff lies past the grants' expiry (same as running 24 h + 15 min later).
  const result = await host.run(runTrashPurge({ ...defaultTrashPurgePolicy, retentionMs: -hour }));
  t.equal(result.purged, 2);
  const rows = await host.db.db.selectFrom("pm_attachments").select(["id", "status"]).execute();
  t.same(rows.map((r) => r.id), [kept.completed.body.id], "only the completed attachment remains");
  const key = (await host.db.db.selectFrom("pm_attachments").select("object_key").executeTakeFirstOrThrow()).object_key as string;
  t.ok(await host.run(Effect.flatMap(ObjectStore, (s) => s.stat(key))), "its object is kept");
  const abandonedKey = key.replace(kept.completed.body.id, abandoned.body.attachment.id);
  t.equal(await host.run(Effect.flatMap(ObjectStore, (s) => s.stat(abandonedKey))), null, "the staging object is deleted");
  t.equal((await owner.call("POST", `/v1/attachments/${abandoned.body.attachment.id}/complete`)).status, 404, "a purged upload is gone");
  t.equal((await owner.call("GET", `/v1/attachments/${neverSent.body.attachment.id}`)).status, 404);

  const trashed = await owner.call("GET", `/v1/tasks/${task.body.id}`);
  t.equal(trashed.status, 200, "the soft-deleted task is kept for restore and audit");
  t.not(trashed.body.deleted_at, null);
  t.equal((await owner.call("POST", `/v1/tasks/${task.body.id}/restore`)).status, 200);
  const next = await host.db.db.selectFrom("jobs").select(["key"]).where("kind", "=", "projects.trash_purge").where("status", "=", "pending").execute();
  t.ok(next.length >= 1, "each run schedules the next slot");
});

forEachDialectConfig(t, `a completion racing the purge either wins (kept) or loses (404), never half of each`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Race" });
  const crypto = await import("node:crypto");
  const outcomes: Array<{ completed: number; rows: number }> = [];
  for (let i = 0; i < 4; i++) {
    const bytes = encode(`race ${i}`);
    const requested = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, {
      filename: `r${i}.txt`,
      content_type: "text/plain",
      size: bytes.length,
      sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
    });
    await host.transfer(requested.body.upload, bytes);
    const [completed] = await Promise.all([
      owner.call("POST", `/v1/attachments/${requested.body.attachment.id}/complete`),
      host.run(runTrashPurge({ ...defaultTrashPurgePolicy, retentionMs: -hour })),
    ]);
    const row = await host.db.db.selectFrom("pm_attachments").select(["status"]).where("id", "=", requested.body.attachment.id).executeTakeFirst();
    outcomes.push({ completed: completed.status, rows: row === undefined ? 0 : 1 });
    if (completed.status === 202) t.equal(row?.status, "quarantined", "a completion that won keeps its attachment");
    else {
      t.ok([404, 409].includes(completed.status), `a completion that lost answers 404/409 (got ${completed.status})`);
      t.equal(row, undefined, "and its staging row is gone");
    }
  }
  t.equal(outcomes.length, 4);
});
