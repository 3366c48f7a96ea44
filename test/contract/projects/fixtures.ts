/**
 * Records the project kits build on: ids that sort in creation order on every store, and a
 * workspace with a project (and tasks) written through the ports, since every project record
 * belongs to one (composite tenant keys: a row can never point into another workspace).
 */
import { Deferred, Duration, Effect, Fiber, Option } from "effect";
import type { Project } from "../../../core/projects/model/Project.js";
import type { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import type { Task } from "../../../core/projects/model/Task.js";
import type { Workspace } from "../../../core/projects/model/Workspace.js";
import { ProjectsRepository } from "../../../ports/projects/ProjectsRepository.js";
import { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { Transactions } from "../../../ports/Transactions.js";
import { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { T0 } from "../Kit.js";
import { ProjectId, TaskId, WorkspaceId } from "../../../core/projects/model/Ids.js";

/** A time-ordered, UUID-shaped id: `uid("a", 2)` < `uid("a", 10)`, and ids of a kind sort together. */
export const uid = (kind: string, n: number): string => {
  const prefix = Buffer.from(kind).toString("hex").padEnd(8, "0").slice(0, 8);
  return `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
};

/** A workspace record. */
export const workspaceRecord = (id: string): Workspace => ({ id: WorkspaceId.make(id), name: `Workspace ${id.slice(-4)}`, createdBy: "owner-1", createdAt: T0 });

/** A project record of `workspaceId`. */
export const projectRecord = (workspaceId: string, id: string): Project => ({
  id: ProjectId.make(id),
  workspaceId: WorkspaceId.make(workspaceId),
  name: `Project ${id.slice(-4)}`,
  createdBy: "owner-1",
  createdAt: T0,
});

/** A live task record (version 1) of `project`. */
export const taskRecord = (project: Project, id: string, overrides: Partial<Task> = {}): Task => ({
  id: TaskId.make(id),
  workspaceId: project.workspaceId,
  projectId: project.id,
  title: `Task ${id.slice(-4)}`,
  status: "todo",
  assigneeId: null,
  rank: "m",
  version: 1,
  deletedAt: null,
  createdBy: "owner-1",
  createdAt: T0,
  updatedAt: T0,
  ...overrides,
});

/** What seeding needs. */
export type SeedPorts = WorkspacesRepository | ProjectsRepository;

/** Writes workspace `n` and its project `n` (ids `uid("ws", n)`, `uid("prj", n)`); answers the project. */
export const seedProject = (n: number, projectN: number = n): Effect.Effect<Project, never, SeedPorts> =>
  Effect.gen(function* () {
    const workspaces = yield* WorkspacesRepository;
    const projects = yield* ProjectsRepository;
    const workspaceId = uid("ws", n);
    if ((yield* workspaces.findWorkspace(workspaceId)) === null) yield* workspaces.insertWorkspace(workspaceRecord(workspaceId));
    const project = projectRecord(workspaceId, uid("prj", projectN));
    yield* projects.insertProject(project);
    return project;
  });

/** Writes the tasks through the TasksRepository. */
export const seedTasks = (tasks: ReadonlyArray<Task>): Effect.Effect<void, never, TasksRepository> =>
  Effect.flatMap(TasksRepository, (repo) => Effect.forEach(tasks, (task) => repo.insertTask(task), { discard: true }));

/** The ids of some rows, in their order. */
export const idsOf = (rows: ReadonlyArray<{ readonly id: string }>): ReadonlyArray<string> => rows.map((row) => row.id);

/** Workspace 1 with project 1 holding tasks 1 and 2 (ids `uid("task", 1)`, `uid("task", 2)`); answers the project. */
export const seedProjectWithTasks: Effect.Effect<Project, never, SeedPorts | TasksRepository> = Effect.gen(function* () {
  const project = yield* seedProject(1);
  yield* seedTasks([taskRecord(project, uid("task", 1)), taskRecord(project, uid("task", 2))]);
  return project;
});

/** Adds a project membership, making the user a workspace member first (a project membership requires one). */
export const joinProject = (member: ProjectMember): Effect.Effect<"created" | "updated", never, SeedPorts> =>
  Effect.gen(function* () {
    const workspaces = yield* WorkspacesRepository;
    yield* workspaces.upsertMember({ workspaceId: member.workspaceId, userId: member.userId, role: "member", createdAt: T0 });
    return yield* Effect.flatMap(ProjectsRepository, (projects) => projects.upsertMember(member));
  });

/**
 * Reads a keyset list page by page (`read(cursor)`, the next cursor made from a page's last row)
 * until a page is empty; answers every row in the order read. At most `maxPages` pages.
 */
export const walkPages = <A, C, R>(
  read: (cursor: C | undefined) => Effect.Effect<ReadonlyArray<A>, never, R>,
  cursorOf: (last: A) => C,
  maxPages = 20,
): Effect.Effect<ReadonlyArray<A>, never, R> =>
  Effect.gen(function* () {
    const all: A[] = [];
    let cursor: C | undefined;
    for (let i = 0; i < maxPages; i++) {
      const page = yield* read(cursor);
      const last = page[page.length - 1];
      if (last === undefined) break;
      all.push(...page);
      cursor = cursorOf(last);
    }
    return all;
  });

/**
 * Runs `hold` in one transaction and, once it has run, `contender` in a second one; after
 * `waitMs` it notes whether the second has finished (it must not, when `hold` took a lock the
 * contender needs), then lets the first transaction go on with `thenWrite` and commit. Answers
 * `{ finishedWhileHeld, result }` (the contender's answer after the first committed).
 */
export const contendWith = <B, R1, R2, R3>(
  hold: Effect.Effect<void, never, R1>,
  thenWrite: Effect.Effect<unknown, never, R2>,
  contender: Effect.Effect<B, never, R3>,
  waitMs = 300,
): Effect.Effect<{ readonly finishedWhileHeld: boolean; readonly result: B }, never, R1 | R2 | R3 | Transactions> =>
  Effect.gen(function* () {
    const tx = yield* Transactions;
    const held = yield* Deferred.make<void>();
    const release = yield* Deferred.make<void>();
    const first = yield* Effect.fork(tx.run(Effect.zipRight(Effect.zipRight(hold, Deferred.succeed(held, undefined)), Effect.zipRight(Deferred.await(release), thenWrite))));
    yield* Deferred.await(held);
    const second = yield* Effect.fork(tx.run(contender));
    yield* Effect.sleep(Duration.millis(waitMs));
    const finishedWhileHeld = Option.isSome(yield* Fiber.poll(second));
    yield* Deferred.succeed(release, undefined);
    yield* Fiber.join(first);
    const result = yield* Fiber.join(second);
    return { finishedWhileHeld, result };
  });
