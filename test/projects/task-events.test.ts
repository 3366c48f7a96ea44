/**
 * Spec rule 3: a task write, its TaskEvent and its outbox row commit in one transaction (a
 * failure while writing rolls back all three), and the database itself refuses UPDATE and
 * DELETE on task events. Also the storage rules behind the lists: rank ties are ordered by id,
 * and a reference into another workspace cannot be stored — SQLite and Postgres.
 */
import t from "tap";
import { Effect, Layer } from "effect";
import { sql } from "kysely";
import { createProject } from "../../core/projects/Projects.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { updateTask } from "../../core/projects/UpdateTask.js";
import { createWorkspace } from "../../core/projects/Workspaces.js";
import { listTasks } from "../../core/projects/TaskQueries.js";
import { recordTaskFact } from "../../core/projects/TaskFacts.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { makeSqlOutbox } from "../../adapters/sql/SqlOutbox.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

const setup = async (run: ReturnType<typeof projectsRuntime>["run"]) => {
  const owner = newUser();
  const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
  const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
  return { owner, workspace, project };
};

const count = async (db: SqlDatabase, table: string): Promise<number> =>
  Number((await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

/** An outbox that writes its row and then fails: everything before it must roll back too. */
const failingOutbox = (db: SqlDatabase) => {
  const real = makeSqlOutbox(db, featuresFor(db));
  return Layer.succeed(Outbox, { append: (events) => Effect.zipRight(real.append(events), Effect.dieMessage("outbox outage")) });
};

t.test("task write, TaskEvent and outbox row commit together: a failure rolls back all three", (t) =>
  forEachDialect(t, "atomic task write", async (t, db) => {
    const healthy = projectsRuntime(t, db);
    const { owner, project } = await setup(healthy.run);
    const task = await healthy.run(createTask(owner, project.id, { title: "Keep me" }));
    const before = { tasks: await count(db, "pm_tasks"), events: await count(db, "pm_task_events"), outbox: await count(db, "outbox") };
    t.same(before.tasks, 1);

    const broken = projectsRuntime(t, db, failingOutbox(db));
    const created = await broken.attempt(createTask(owner, project.id, { title: "Lost" }));
    t.match(created, { ok: false, defect: { message: "outbox outage" } });
    const updated = await broken.attempt(updateTask(owner, task.id, 1, { title: "Changed" }));
    t.equal(updated.ok, false);
    t.same(
      { tasks: await count(db, "pm_tasks"), events: await count(db, "pm_task_events"), outbox: await count(db, "outbox") },
      before,
      "no task, no TaskEvent, no outbox row survived the failures",
    );
    const stored = await healthy.run(Effect.flatMap(TasksRepository, (r) => r.findTask(task.id)));
    t.match(stored, { title: "Keep me", version: 1 }, "the failed update left the task as it was");

    const ok = await healthy.run(updateTask(owner, task.id, 1, { title: "Changed" }));
    t.equal(ok.version, 2);
    const outbox = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "TaskChanged").execute();
    t.equal(outbox.length, 1);
    const envelope = featuresFor(db).jsonFromDb(outbox[0]!.event) as { aggregate_version: number; data: { project_id: string } };
    t.match(envelope, { aggregate_version: 2, data: { project_id: project.id } }, "TaskChanged carries the task version");
  }),
);

t.test("task events are append-only: the database refuses UPDATE and DELETE", (t) =>
  forEachDialect(t, "append-only task events", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const { owner, project } = await setup(run);
    await run(createTask(owner, project.id, { title: "Audited" }));
    t.equal(await count(db, "pm_task_events"), 1);
    await t.rejects(sql`UPDATE pm_task_events SET kind = 'forged'`.execute(db.db), /append-only/, "UPDATE refused");
    await t.rejects(sql`DELETE FROM pm_task_events`.execute(db.db), /append-only/, "DELETE refused");
    await t.rejects(sql`DELETE FROM pm_membership_audit`.execute(db.db), /append-only/, "the membership audit is append-only too");
    t.equal(await count(db, "pm_task_events"), 1);
  }),
);

t.test("tasks sharing one rank are listed in a total, stable order by id", (t) =>
  forEachDialect(t, "rank ties", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const { owner, project } = await setup(run);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await run(createTask(owner, project.id, { title: `T${i}` }))).id);
    // Collide every rank, as concurrent creates may.
    await sql`UPDATE pm_tasks SET rank = 'V', version = version + 1`.execute(db.db);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await run(listTasks(owner, project.id, { cursor, limit: 2 }));
      seen.push(...page.data.map((task) => task.id));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    t.same(seen, [...ids].sort(), "every task once, ordered by id within the shared rank");
  }),
);

t.test("a task cannot reference a project of another workspace (composite tenant keys)", (t) =>
  forEachDialect(t, "composite keys", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const a = await setup(run);
    const b = await setup(run);
    const f = featuresFor(db);
    const now = f.timeToDb(new Date());
    const row = {
      id: crypto.randomUUID(),
      workspace_id: a.workspace.id,
      project_id: b.project.id,
      title: "Smuggled",
      status: "todo",
      assignee_id: null,
      rank: "V",
      version: 1,
      deleted_at: null,
      created_by: a.owner.userId,
      created_at: now,
      updated_at: now,
    };
    await t.rejects(db.db.insertInto("pm_tasks").values(row).execute(), "workspace A with project of workspace B is refused");
    await t.rejects(
      db.db.insertInto("pm_tasks").values({ ...row, id: crypto.randomUUID(), project_id: a.project.id, version: 0 }).execute(),
      "version must be greater than 0",
    );
  }),
);

t.test("a task fact that does not fit its declared event is refused before anything is written", (t) =>
  forEachDialect(t, "fact check", async (t, db) => {
    const { run, attempt } = projectsRuntime(t, db);
    const { owner, project } = await setup(run);
    const task = await run(createTask(owner, project.id, { title: "Checked" }));
    const before = { events: await count(db, "pm_task_events"), outbox: await count(db, "outbox") };
    // TaskChanged declares `changes` as a record of { from, to }: a number does not fit.
    const bad = await attempt(
      Transactions.pipe(Effect.flatMap((tx) => tx.run(recordTaskFact({ task, actorId: owner.userId, kind: "task.updated", data: { changes: 42 } })))),
    );
    t.match(bad, { ok: false, defect: { message: /task fact task\.updated: the envelope does not fit its declared event TaskChanged/ } });
    const good = await attempt(
      Transactions.pipe(
        Effect.flatMap((tx) =>
          tx.run(recordTaskFact({ task, actorId: owner.userId, kind: "task.updated", data: { changes: { title: { from: "a", to: "b" } } } })),
        ),
      ),
    );
    t.equal(good.ok, true, "a fitting fact of the same kind is recorded");
    t.same(
      { events: await count(db, "pm_task_events"), outbox: await count(db, "outbox") },
      { events: before.events + 1, outbox: before.outbox + 1 },
      "only the fitting fact left a TaskEvent and an outbox row",
    );
  }),
);
