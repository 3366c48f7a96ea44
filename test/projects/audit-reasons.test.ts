/**
 * What the service does: "Permission, membership, deletion and automation actions record actor
 * and reason". A task's deletion and restoration carry the caller's reason (`?reason=`) in their
 * TaskEvent and TaskChanged data, with a default when none is given; a share link's revocation
 * records who revoked it and why, whether revoked directly or with its creator's membership —
 * SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "./support.js";

forEachDialectConfig(t, `deletion and share-link revocation record actor and reason`, async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { projectId, clients } = await projectFixture(client, {
    admin: { workspace: "member", project: "admin" },
    dev: { workspace: "member", project: "contributor" },
  });
  const admin = clients.admin!;
  const dev = clients.dev!;

  // Task deletion and restoration: actor and reason in the TaskEvent and the outbox event.
  const task = await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Duplicate" });
  t.equal((await dev.call("DELETE", `/v1/tasks/${task.body.id}?reason=duplicate%20of%20another`)).status, 200);
  t.equal((await admin.call("POST", `/v1/tasks/${task.body.id}/restore?reason=not%20a%20duplicate`)).status, 200);
  const events = await db.db
    .selectFrom("pm_task_events")
    .select(["actor_id", "kind", "data"])
    .where("task_id", "=", task.body.id)
    .where("kind", "in", ["task.deleted", "task.restored"])
    .execute();
  const dataOf = (kind: string) => {
    const row = events.find((e) => e.kind === kind)!;
    return { actor: row.actor_id, data: typeof row.data === "string" ? JSON.parse(row.data) : row.data };
  };
  t.match(dataOf("task.deleted"), { actor: dev.userId, data: { reason: "duplicate of another" } }, "the deletion records its actor and reason");
  t.match(dataOf("task.restored"), { actor: admin.userId, data: { reason: "not a duplicate" } }, "the restoration too");
  const outbox = await db.db.selectFrom("outbox").select(["event"]).where("type", "=", "TaskChanged").execute();
  const payloads = outbox.map((r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event));
  t.ok(
    payloads.some((p) => p.data?.kind === "task.deleted" && p.data?.reason === "duplicate of another" && p.actor_id === dev.userId),
    "TaskChanged carries the reason to consumers",
  );
  const other = await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Stale" });
  t.equal((await dev.call("DELETE", `/v1/tasks/${other.body.id}`)).status, 200);
  const plain = await db.db.selectFrom("pm_task_events").select(["data"]).where("task_id", "=", other.body.id).where("kind", "=", "task.deleted").executeTakeFirstOrThrow();
  const plainData = typeof plain.data === "string" ? JSON.parse(plain.data) : plain.data;
  t.type(plainData.reason, "string", "a deletion without ?reason= still records one");
  t.ok(String(plainData.reason ?? "").length > 0, "a non-empty one");

  // Share-link revocation: who and why.
  const direct = await dev.call("POST", `/v1/projects/${projectId}/share-links`, {});
  t.equal((await admin.call("DELETE", `/v1/share-links/${direct.body.id}?reason=posted%20publicly`)).status, 204);
  const withRemoval = await dev.call("POST", `/v1/projects/${projectId}/share-links`, {});
  t.equal((await admin.call("DELETE", `/v1/projects/${projectId}/members/${dev.userId}?reason=left`)).status, 204);
  const rows = await db.db
    .selectFrom("pm_share_links")
    .selectAll()
    .where("id", "in", [direct.body.id, withRemoval.body.id])
    .execute();
  const rowOf = (id: string) => rows.find((r) => r.id === id);
  t.match(rowOf(direct.body.id), { revoked_by: admin.userId, revoked_reason: "posted publicly" }, "a direct revocation records its actor and reason");
  t.match(
    rowOf(withRemoval.body.id),
    { revoked_by: admin.userId, revoked_reason: "membership_revoked" },
    "a revocation with the creator's removal records the removal's actor",
  );
  const listed = await admin.call("GET", `/v1/projects/${projectId}/share-links`);
  t.match(
    listed.body.data.find((l: { id: string }) => l.id === direct.body.id),
    { revoked_by: admin.userId, revoked_reason: "posted publicly" },
    "admins read who revoked a link and why",
  );
});
