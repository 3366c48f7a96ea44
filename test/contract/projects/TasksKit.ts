/**
 * Contract kit for the TasksRepository: a task reads back as written; `updateTask` writes only
 * while the stored version is the expected one (the database decides the race); task pages are
 * keyset pages in (rank, id) order with ties broken by id, live tasks only, filtered before the
 * limit; `lastRank` counts deleted tasks; the activity feed is newest first by (created_at, id)
 * and scoped to the given projects.
 */
import { Effect } from "effect";
import type { Task } from "../../../core/projects/model/Task.js";
import type { TaskEvent } from "../../../core/projects/model/TaskEvent.js";
import { TasksRepository, type RankKey } from "../../../ports/projects/TasksRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { joinProject, seedProject, seedTasks, taskRecord, idsOf, uid, walkPages, type SeedPorts } from "./fixtures.js";
import { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { TaskEventId, TaskId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type TasksKitPorts = TasksRepository | SeedPorts;

const tasks = <A>(f: (r: TasksRepository) => Effect.Effect<A>) => Effect.flatMap(TasksRepository, f);
const ids = idsOf;

const event = (task: Task, n: number, createdAt: Date): TaskEvent => ({
  id: TaskEventId.make(uid("evt", n)),
  workspaceId: task.workspaceId,
  projectId: task.projectId,
  taskId: task.id,
  actorId: "owner-1",
  kind: "task.updated",
  data: { n, nested: { list: [1, "two"] } },
  createdAt,
});

/** The cases of the tasks repository kit. */
export const tasksCases: ReadonlyArray<KitCase<TasksKitPorts>> = [
  {
    name: "tasks: findTaskWithRoles reads the task with its project and the caller's roles there, and only the caller's",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(2, 2));
      const task = taskRecord(project, uid("task", 1), { status: "done", version: 3 });
      const elsewhere = taskRecord(other, uid("task", 2));
      await run(seedTasks([task, elsewhere]));
      await run(joinProject({ workspaceId: project.workspaceId, projectId: project.id, userId: "user-1", role: "viewer", addedBy: "owner-1", createdAt: T0 }));
      await run(Effect.flatMap(WorkspacesRepository, (w) => w.upsertMember({ workspaceId: project.workspaceId, userId: "user-2", role: "owner", createdAt: T0 })));
      const withRoles = (taskId: string, userId: string) => run(tasks((r) => r.findTaskWithRoles(taskId, userId)));
      t.same(await withRoles(task.id, "user-1"), { task, project, workspaceRole: "member", projectRole: "viewer" }, "a project member");
      t.same(await withRoles(task.id, "user-2"), { task, project, workspaceRole: "owner", projectRole: null }, "a workspace owner");
      t.same(await withRoles(elsewhere.id, "user-1"), { task: elsewhere, project: other, workspaceRole: null, projectRole: null }, "another workspace's task: no role");
      t.equal(await withRoles(uid("task", 3), "user-1"), null, "an unknown task");
    },
  },
  {
    name: "tasks: a task reads back as written; an unknown id finds nothing",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const task = taskRecord(project, uid("task", 1), { assigneeId: "user-2", status: "in_progress", rank: "k", version: 4, updatedAt: at(5) });
      await run(seedTasks([task]));
      t.same(await run(tasks((r) => r.findTask(task.id))), task);
      t.equal(await run(tasks((r) => r.findTask(uid("task", 2)))), null);
    },
  },
  {
    name: "tasks: updateTask writes only while the stored version is the expected one",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const task = taskRecord(project, uid("task", 1));
      await run(seedTasks([task]));
      const v2: Task = { ...task, title: "Renamed", version: 2, updatedAt: at(10) };
      t.equal(await run(tasks((r) => r.updateTask(v2, 1))), true, "version 1 is stored: the write wins");
      t.same(await run(tasks((r) => r.findTask(task.id))), v2);
      const stale: Task = { ...task, title: "Stale", version: 2, updatedAt: at(20) };
      t.equal(await run(tasks((r) => r.updateTask(stale, 1))), false, "the version moved: refused");
      t.same(await run(tasks((r) => r.findTask(task.id))), v2, "nothing written by the refused update");
      t.equal(await run(tasks((r) => r.updateTask({ ...task, id: TaskId.make(uid("task", 9)) }, 1))), false, "an unknown task is not updated");
    },
  },
  {
    name: "tasks: updateTask never moves a task to another project or workspace",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(2));
      const task = taskRecord(project, uid("task", 1));
      await run(seedTasks([task]));
      await run(tasks((r) => r.updateTask({ ...task, workspaceId: other.workspaceId, projectId: other.id, version: 2 }, 1)).pipe(Effect.exit));
      const stored = await run(tasks((r) => r.findTask(task.id)));
      t.equal(stored?.projectId, project.id);
      t.equal(stored?.workspaceId, project.workspaceId);
    },
  },
  {
    name: "tasks: pages are in (rank, id) order, ties broken by id, and a cursor continues strictly after",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const rows = [
        taskRecord(project, uid("task", 5), { rank: "b" }),
        taskRecord(project, uid("task", 3), { rank: "c" }),
        taskRecord(project, uid("task", 4), { rank: "b" }),
        taskRecord(project, uid("task", 1), { rank: "d" }),
        taskRecord(project, uid("task", 2), { rank: "a" }),
        taskRecord(project, uid("task", 6), { rank: "b" }),
      ];
      await run(seedTasks(rows));
      const expected = [uid("task", 2), uid("task", 4), uid("task", 5), uid("task", 6), uid("task", 3), uid("task", 1)];
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, limit: 10 })))), expected);
      const walked = await run(
        walkPages(
          (after: RankKey | undefined) => tasks((r) => r.listTasks({ projectId: project.id, after, limit: 2 })),
          (last) => ({ rank: last.rank, id: last.id }),
        ),
      );
      t.same(ids(walked), expected, "pages of 2 walk the same order, each row once, across equal ranks");
    },
  },
  {
    name: "tasks: ranks compare byte-wise (upper case before lower case, no locale)",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      await run(seedTasks([taskRecord(project, uid("task", 1), { rank: "a" }), taskRecord(project, uid("task", 2), { rank: "Z" }), taskRecord(project, uid("task", 3), { rank: "a0" })]));
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, limit: 10 })))), [uid("task", 2), uid("task", 1), uid("task", 3)]);
    },
  },
  {
    name: "tasks: lists hold live tasks of the project only, filtered before the limit",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const sibling = await run(seedProject(1, 2));
      await run(
        seedTasks([
          taskRecord(project, uid("task", 1), { rank: "a", status: "done" }),
          taskRecord(project, uid("task", 2), { rank: "b", deletedAt: at(1) }),
          taskRecord(project, uid("task", 3), { rank: "c", status: "todo", assigneeId: "user-7" }),
          taskRecord(project, uid("task", 4), { rank: "d", status: "done" }),
          taskRecord(sibling, uid("task", 5), { rank: "a", status: "done" }),
        ]),
      );
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, limit: 10 })))), [uid("task", 1), uid("task", 3), uid("task", 4)], "no deleted task, no other project's");
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, status: "done", limit: 1 })))), [uid("task", 1)]);
      t.same(
        ids(await run(tasks((r) => r.listTasks({ projectId: project.id, filter: { statuses: ["done"] }, after: { rank: "a", id: uid("task", 1) }, limit: 1 })))),
        [uid("task", 4)],
        "the filter applies before the limit",
      );
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, filter: { assignee: { id: "user-7" } }, limit: 10 })))), [uid("task", 3)]);
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: project.id, filter: { assignee: { id: null } }, limit: 10 })))), [uid("task", 1), uid("task", 4)], "unassigned");
      t.same(ids(await run(tasks((r) => r.listTasks({ projectId: uid("prj", 99), limit: 10 })))), [], "an unknown project has no tasks");
    },
  },
  {
    name: "tasks: a descending order is exactly the ascending one reversed, and its cursor walks it",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      await run(
        seedTasks([
          taskRecord(project, uid("task", 1), { title: "b" }),
          taskRecord(project, uid("task", 2), { title: "a" }),
          taskRecord(project, uid("task", 3), { title: "b" }),
          taskRecord(project, uid("task", 4), { title: "c" }),
        ]),
      );
      const asc = ids(await run(tasks((r) => r.listTasks({ projectId: project.id, order: { by: "title", direction: "asc" }, limit: 10 }))));
      t.same(asc, [uid("task", 2), uid("task", 1), uid("task", 3), uid("task", 4)], "title, then id");
      const desc = ids(await run(tasks((r) => r.listTasks({ projectId: project.id, order: { by: "title", direction: "desc" }, limit: 10 }))));
      t.same(desc, [...asc].reverse());
      const page = await run(
        tasks((r) => r.listTasks({ projectId: project.id, order: { by: "title", direction: "desc" }, after: { values: ["b"], id: uid("task", 3) }, limit: 10 })),
      );
      t.same(ids(page), [uid("task", 1), uid("task", 2)]);
    },
  },
  {
    name: "tasks: lastRank is the greatest rank of the project, deleted tasks included",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const sibling = await run(seedProject(1, 2));
      t.equal(await run(tasks((r) => r.lastRank(project.id))), null, "no task yet");
      await run(
        seedTasks([
          taskRecord(project, uid("task", 1), { rank: "c" }),
          taskRecord(project, uid("task", 2), { rank: "f", deletedAt: at(1) }),
          taskRecord(sibling, uid("task", 3), { rank: "z" }),
        ]),
      );
      t.equal(await run(tasks((r) => r.lastRank(project.id))), "f");
    },
  },
  {
    name: "tasks: the activity feed is newest first by (created_at, id), scoped to the given projects",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(2));
      const task = taskRecord(project, uid("task", 1));
      const foreign = taskRecord(other, uid("task", 2));
      await run(seedTasks([task, foreign]));
      const events = [event(task, 1, at(100)), event(task, 2, at(200)), event(task, 3, at(200)), event(foreign, 4, at(300)), event(task, 5, at(50))];
      await run(Effect.forEach(events, (e) => tasks((r) => r.appendEvent(e)), { discard: true }));
      const feed = await run(tasks((r) => r.listEvents({ scope: { projectIds: [project.id] }, limit: 10 })));
      t.same(ids(feed), [uid("evt", 3), uid("evt", 2), uid("evt", 1), uid("evt", 5)], "another project's event is not in the feed");
      t.same(feed[0], events[2], "an event reads back as appended (JSON data included)");
      const next = await run(tasks((r) => r.listEvents({ scope: { projectIds: [project.id] }, before: { createdAt: at(200).toISOString(), id: uid("evt", 3) }, limit: 2 })));
      t.same(ids(next), [uid("evt", 2), uid("evt", 1)], "strictly before the cursor, ties by id");
      const one = await run(tasks((r) => r.listEvents({ scope: { projectIds: [other.id] }, limit: 1 })));
      t.same(ids(one), [uid("evt", 4)], "the project filter applies before the limit");
    },
  },
  {
    name: "tasks: the activity feed over several projects merges them newest first by (created_at, id), the limit counting merged events",
    run: async (t, run) => {
      // 130 projects: more than an adapter may merge in one statement (the SQL adapter merges 100).
      const projects = await run(Effect.forEach(Array.from({ length: 130 }, (_, i) => i + 1), (n) => seedProject(1, n)));
      const taskOf = projects.map((project, i) => taskRecord(project, uid("task", i + 1)));
      await run(seedTasks(taskOf));
      // Event n of project i at time (n * 1000 + i): the feed interleaves every project; two events share a time.
      const events = taskOf.flatMap((task, i) => [1, 2, 3].map((n) => event(task, i * 10 + n, at(n * 1000 + i))));
      events.push(event(taskOf[7]!, 5000, at(3000 + 129)));
      await run(Effect.forEach(events, (e) => tasks((r) => r.appendEvent(e)), { discard: true }));
      const expected = [...events]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .map((e) => e.id);
      const projectIds = projects.map((p) => p.id);
      const first = await run(tasks((r) => r.listEvents({ scope: { projectIds }, limit: 25 })));
      t.same(ids(first), expected.slice(0, 25), "page 1: the 25 newest of all projects, ties by id");
      const last = first[first.length - 1]!;
      const second = await run(tasks((r) => r.listEvents({ scope: { projectIds }, before: { createdAt: last.createdAt.toISOString(), id: last.id }, limit: 25 })));
      t.same(ids(second), expected.slice(25, 50), "page 2 continues strictly after the cursor, across projects");
      const some = await run(tasks((r) => r.listEvents({ scope: { projectIds: [projectIds[3]!, projectIds[120]!] }, limit: 10 })));
      t.same(ids(some), expected.filter((id) => [uid("evt", 31), uid("evt", 32), uid("evt", 33), uid("evt", 1201), uid("evt", 1202), uid("evt", 1203)].includes(id)), "only the given projects");
      // Every count of projects from 1 to 12 (an adapter may prepare a statement per count), paged by cursor to the end.
      for (let count = 1; count <= 12; count++) {
        const given = projectIds.slice(0, count);
        const wanted = events
          .filter((e) => given.includes(e.projectId))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .map((e) => e.id);
        const paged: string[] = [];
        let page = await run(tasks((r) => r.listEvents({ scope: { projectIds: given }, limit: 4 })));
        while (page.length > 0 && paged.length <= wanted.length) {
          paged.push(...ids(page));
          const tail = page[page.length - 1]!;
          page = await run(tasks((r) => r.listEvents({ scope: { projectIds: given }, before: { createdAt: tail.createdAt.toISOString(), id: tail.id }, limit: 4 })));
        }
        t.same(paged, wanted, `${count} project(s): every event once, newest first, pages of 4`);
      }
    },
  },
  {
    name: "tasks: the activity feed of everything a user sees holds its owned workspaces' projects and its project memberships only, newest first, within one workspace when given",
    run: async (t, run) => {
      const owned = [await run(seedProject(1, 1)), await run(seedProject(1, 2))];
      const shared = await run(seedProject(2, 3));
      const hidden = await run(seedProject(2, 4));
      await run(Effect.flatMap(WorkspacesRepository, (w) => w.upsertMember({ workspaceId: owned[0]!.workspaceId, userId: "user-2", role: "owner", createdAt: T0 })));
      await run(joinProject({ workspaceId: shared.workspaceId, projectId: shared.id, userId: "user-2", role: "viewer", addedBy: "owner-1", createdAt: T0 }));
      const taskOf = [...owned, shared, hidden].map((project, i) => taskRecord(project, uid("task", i + 1)));
      await run(seedTasks(taskOf));
      // Event n of project i at time (n * 10 + i), the hidden project's newest of all.
      const events = taskOf.flatMap((task, i) => [1, 2, 3].map((n) => event(task, i * 10 + n, at(n * 10 + i))));
      await run(Effect.forEach(events, (e) => tasks((r) => r.appendEvent(e)), { discard: true }));
      const newestFirst = (list: ReadonlyArray<TaskEvent>) =>
        [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((e) => e.id);
      const pagesOf = async (scope: { visibleTo: string; workspaceId?: string }) => {
        const paged: string[] = [];
        let page = await run(tasks((r) => r.listEvents({ scope, limit: 2 })));
        while (page.length > 0 && paged.length <= events.length) {
          paged.push(...ids(page));
          const tail = page[page.length - 1]!;
          page = await run(tasks((r) => r.listEvents({ scope, before: { createdAt: tail.createdAt.toISOString(), id: tail.id }, limit: 2 })));
        }
        return paged;
      };
      t.same(await pagesOf({ visibleTo: "user-2" }), newestFirst(events.filter((e) => e.projectId !== hidden.id)), "owned and shared projects, pages of 2");
      t.same(await pagesOf({ visibleTo: "user-2", workspaceId: shared.workspaceId }), newestFirst(events.filter((e) => e.projectId === shared.id)), "within one workspace");
      t.same(await pagesOf({ visibleTo: "user-9" }), [], "a user with nothing");
    },
  },
  {
    name: "tasks: an appended event cannot be appended again under its id",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const task = taskRecord(project, uid("task", 1));
      await run(seedTasks([task]));
      await run(tasks((r) => r.appendEvent(event(task, 1, T0))));
      const again = await run(tasks((r) => r.appendEvent({ ...event(task, 1, at(1)), kind: "task.other" })).pipe(Effect.exit));
      t.equal(again._tag, "Failure", "the activity log is append-only: the same id is refused");
      t.same(ids(await run(tasks((r) => r.listEvents({ scope: { projectIds: [project.id] }, limit: 10 })))), [uid("evt", 1)]);
    },
  },
  {
    name: "tasks: a task never crosses workspaces: (workspace, project) must be a project of that workspace",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(2));
      const crossing = taskRecord(project, uid("task", 1), { workspaceId: other.workspaceId });
      const exit = await run(Effect.exit(seedTasks([crossing])));
      t.equal(exit._tag, "Failure", "spec, composite tenant references: refused");
      t.equal(await run(tasks((r) => r.findTask(crossing.id))), null, "nothing written");
    },
  },
];

/** Runs the tasks repository kit. */
export const tasksSuite = (options: SuiteOptions<TasksKitPorts>): Promise<unknown> => runCases(options, tasksCases);
