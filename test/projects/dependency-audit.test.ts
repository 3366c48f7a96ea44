/**
 * Spec (What the service does: "Permission, membership, deletion and automation actions record
 * actor and reason"): removing a task dependency deletes project data, so it records who removed
 * it and why (`?reason=` on the DELETE, as the membership and task deletions take it), and adding
 * one records who added it, in the change's own transaction, in an append-only log. A removal of
 * an edge that is not there records nothing (the DELETE is idempotent) — SQLite and Postgres.
 */
import t from "tap";
import { sql } from "kysely";
import { createTask } from "../../core/projects/CreateTask.js";
import { addDependency, removeDependency } from "../../core/projects/Dependencies.js";
import { forEachDialect } from "../support/databases.js";
import { coreFixture } from "./notifications-support.js";
import { projectsRuntime } from "./support.js";

t.test("a dependency's removal records its actor and reason, its addition its actor (append-only)", (t) =>
  forEachDialect(t, "dependency audit", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const { owner, project, users } = await coreFixture(run, { dev: { workspace: "member", project: "contributor" } });
    const dev = users.dev!;
    const blocked = await run(createTask(owner, project.id, { title: "Launch" }));
    const blocker = await run(createTask(owner, project.id, { title: "Review" }));
    await run(addDependency(owner, blocked.id, blocker.id));
    await run(removeDependency(dev, blocked.id, blocker.id, { reason: "the review was dropped" }));
    await run(removeDependency(dev, blocked.id, blocker.id, { reason: "again" }));
    const rows = await sql<{ action: string; actor_id: string; reason: string; task_id: string; blocked_by_id: string }>`
      SELECT action, actor_id, reason, task_id, blocked_by_id FROM pm_dependency_audit ORDER BY created_at, action`.execute(db.db);
    t.same(
      rows.rows,
      [
        { action: "dependency.added", actor_id: owner.userId, reason: "added by a project member", task_id: blocked.id, blocked_by_id: blocker.id },
        { action: "dependency.removed", actor_id: dev.userId, reason: "the review was dropped", task_id: blocked.id, blocked_by_id: blocker.id },
      ],
      "one entry per change that happened, with actor and reason; the repeated removal records nothing",
    );
    const refused = await sql`UPDATE pm_dependency_audit SET reason = 'rewritten'`.execute(db.db).then(
      () => false,
      () => true,
    );
    t.ok(refused, "the log is append-only");
  }),
);
