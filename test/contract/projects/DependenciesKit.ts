/**
 * Contract kit for the DependenciesRepository: an edge is inserted once; `reaches` follows
 * blocked-by edges transitively (what cycle detection relies on: adding "a blocked by b" closes
 * a cycle exactly when b reaches a); deletion answers whether there was an edge; a task's
 * dependencies are reported in both directions and its edges counted.
 */
import { Effect } from "effect";
import type { Project } from "../../../core/projects/model/Project.js";
import type { TaskDependency } from "../../../core/projects/model/TaskDependency.js";
import { DependenciesRepository } from "../../../ports/projects/DependenciesRepository.js";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import type { Transactions } from "../../../ports/Transactions.js";
import { runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { contendWith, seedProject, seedTasks, taskRecord, uid, type SeedPorts } from "./fixtures.js";
import { TaskId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type DependenciesKitPorts = DependenciesRepository | TasksRepository | Transactions | SeedPorts;

const deps = <A>(f: (r: DependenciesRepository) => Effect.Effect<A>) => Effect.flatMap(DependenciesRepository, f);
const task = (n: number) => uid("task", n);

/** The edge "task `taskN` is blocked by task `blockedByN`" in `project`. */
export const dependencyRecord = (project: Project, taskN: number, blockedByN: number): TaskDependency => ({
  workspaceId: project.workspaceId,
  projectId: project.id,
  taskId: TaskId.make(task(taskN)),
  blockedById: TaskId.make(task(blockedByN)),
  createdBy: "user-1",
  createdAt: T0,
});

/** A project with tasks 1..5. */
const seed = Effect.gen(function* () {
  const project = yield* seedProject(1);
  yield* seedTasks([1, 2, 3, 4, 5].map((n) => taskRecord(project, task(n))));
  return project;
});
const link = (project: Project, edges: ReadonlyArray<readonly [number, number]>) =>
  deps((r) => Effect.forEach(edges, ([a, b]) => r.insertDependency(dependencyRecord(project, a, b))));

/** The cases of the dependencies repository kit. */
export const dependenciesCases: ReadonlyArray<KitCase<DependenciesKitPorts>> = [
  {
    name: "dependencies: an edge is inserted once; a repeat is false",
    run: async (t, run) => {
      const project = await run(seed);
      t.same(await run(link(project, [[1, 2]])), [true]);
      t.same(await run(link(project, [[1, 2]])), [false], "it already exists");
      t.same(await run(link(project, [[2, 1]])), [true], "the reverse edge is another edge");
      t.equal(await run(deps((r) => r.countEdges(task(1)))), 2);
    },
  },
  {
    name: "dependencies: reaches follows blocked-by edges transitively, in their direction only",
    run: async (t, run) => {
      const project = await run(seed);
      await run(link(project, [[1, 2], [2, 3], [3, 4]]));
      const reaches = (from: number, to: number) => run(deps((r) => r.reaches(task(from), task(to))));
      t.equal(await reaches(1, 2), true, "directly");
      t.equal(await reaches(1, 4), true, "through two tasks");
      t.equal(await reaches(4, 1), false, "not against the edges");
      t.equal(await reaches(1, 5), false, "an unconnected task");
      t.equal(await reaches(5, 1), false);
      t.equal(await reaches(4, 4), false, "a task without a cycle does not reach itself");
    },
  },
  {
    name: "dependencies: a cycle is visible to reaches (the check the use case runs before inserting)",
    run: async (t, run) => {
      const project = await run(seed);
      await run(link(project, [[1, 2], [2, 3]]));
      // 1 is blocked by 2, 2 by 3: "3 blocked by 1" closes a cycle because 1 reaches 3.
      t.equal(await run(deps((r) => r.reaches(task(1), task(3)))), true, "adding 3 -> 1 would close a cycle");
      t.equal(await run(deps((r) => r.reaches(task(3), task(1)))), false, "adding 1 -> 3 would not");
      await run(link(project, [[3, 1]]));
      t.equal(await run(deps((r) => r.reaches(task(1), task(1)))), true, "once the cycle exists, a task reaches itself (and the query terminates)");
    },
  },
  {
    name: "dependencies: deleteDependency answers whether there was an edge",
    run: async (t, run) => {
      const project = await run(seed);
      await run(link(project, [[1, 2], [1, 3]]));
      t.equal(await run(deps((r) => r.deleteDependency(task(1), task(2)))), true);
      t.equal(await run(deps((r) => r.deleteDependency(task(1), task(2)))), false, "already gone");
      t.equal(await run(deps((r) => r.deleteDependency(task(3), task(1)))), false, "the reverse edge never existed");
      t.equal(await run(deps((r) => r.reaches(task(1), task(2)))), false);
      t.equal(await run(deps((r) => r.reaches(task(1), task(3)))), true, "the other edge stays");
    },
  },
  {
    name: "dependencies: a task's dependencies in both directions, and its edge count",
    run: async (t, run) => {
      const project = await run(seed);
      await run(link(project, [[1, 3], [1, 2], [4, 1], [5, 1], [4, 5]]));
      const of1 = await run(deps((r) => r.dependenciesOf(task(1))));
      t.same([...of1.blockedBy].sort(), [task(2), task(3)]);
      t.same([...of1.blocking].sort(), [task(4), task(5)]);
      t.equal(await run(deps((r) => r.countEdges(task(1)))), 4);
      t.same(await run(deps((r) => r.dependenciesOf(task(3)))), { blockedBy: [], blocking: [task(1)] });
      t.equal(await run(deps((r) => r.countEdges(uid("task", 9)))), 0);
    },
  },
  {
    name: "dependencies: lockProject serializes dependency changes of one project until the transaction ends",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const project = await run(seed);
      await run(link(project, [[1, 2]]));
      // The first holds the project, then adds "2 blocked by 3"; the second, under the same lock,
      // checks whether "3 blocked by 1" would close a cycle.
      const lock = deps((r) => r.lockProject(project.id));
      const outcome = await run(contendWith(lock, link(project, [[2, 3]]), Effect.zipRight(lock, deps((r) => r.reaches(task(1), task(3))))));
      t.equal(outcome.finishedWhileHeld, false, "the second waits while the first holds the project");
      t.equal(outcome.result, true, "after the first commits, the second sees its edge (1 reaches 3 through 2)");
    },
  },
];

/** Runs the dependencies repository kit. */
export const dependenciesSuite = (options: SuiteOptions<DependenciesKitPorts>): Promise<unknown> => runCases(options, dependenciesCases);
