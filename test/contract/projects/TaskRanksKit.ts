/**
 * Contract kit for TaskRanks: the ordering primitives of moves and rebalance work on a project's
 * full (rank, id) order — deleted tasks included — with ties broken by id: `neighbour` in both
 * directions (skipping `excludeId`), `withRank` (a tie group in id order), `slice` (a keyset
 * page), and `lockTasks` answering the tasks as they are, in id order.
 */
import { Effect } from "effect";
import { TaskRanks } from "../../../ports/projects/TaskRanks.js";
import { TasksRepository, type RankKey } from "../../../ports/projects/TasksRepository.js";
import type { Transactions } from "../../../ports/Transactions.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { contendWith, seedProject, seedTasks, taskRecord, idsOf, uid, walkPages, type SeedPorts } from "./fixtures.js";

/** The ports this kit needs. */
export type TaskRanksKitPorts = TaskRanks | TasksRepository | Transactions | SeedPorts;

const ranks = <A>(f: (r: TaskRanks) => Effect.Effect<A>) => Effect.flatMap(TaskRanks, f);
const ids = idsOf;
const task = (n: number) => uid("task", n);

/**
 * Project 1 in (rank, id) order: 2 (a), 4 (b), 5 (b, deleted), 6 (b), 3 (c), 1 (d); project 2
 * holds task 7 (rank b) that no call on project 1 may see.
 */
const seed = Effect.gen(function* () {
  const project = yield* seedProject(1);
  const other = yield* seedProject(1, 2);
  yield* seedTasks([
    taskRecord(project, task(1), { rank: "d" }),
    taskRecord(project, task(2), { rank: "a" }),
    taskRecord(project, task(3), { rank: "c" }),
    taskRecord(project, task(4), { rank: "b" }),
    taskRecord(project, task(5), { rank: "b", deletedAt: at(1) }),
    taskRecord(project, task(6), { rank: "b" }),
    taskRecord(other, task(7), { rank: "b" }),
  ]);
  return project;
});
const fullOrder = [task(2), task(4), task(5), task(6), task(3), task(1)];

/** The cases of the task ranks kit. */
export const taskRanksCases: ReadonlyArray<KitCase<TaskRanksKitPorts>> = [
  {
    name: "task ranks: slice walks the full (rank, id) order, deleted tasks included, strictly after the cursor",
    run: async (t, run) => {
      const project = await run(seed);
      t.same(ids(await run(ranks((r) => r.slice({ projectId: project.id, limit: 10 })))), fullOrder);
      const walked = await run(
        walkPages(
          (after: RankKey | undefined) => ranks((r) => r.slice({ projectId: project.id, after, limit: 2 })),
          (last) => ({ rank: last.rank, id: last.id }),
        ),
      );
      t.same(ids(walked), fullOrder, "pages of 2 see every task once");
    },
  },
  {
    name: "task ranks: neighbour answers the next task in either direction, ties by id, skipping excludeId",
    run: async (t, run) => {
      const project = await run(seed);
      const neighbour = (of: number, rank: string, direction: "before" | "after", excludeId?: string) =>
        run(ranks((r) => r.neighbour({ projectId: project.id, of: { rank, id: task(of) }, direction, excludeId }))).then((x) => x?.id ?? null);
      t.equal(await neighbour(4, "b", "after"), task(5), "the deleted task counts");
      t.equal(await neighbour(4, "b", "before"), task(2));
      t.equal(await neighbour(6, "b", "before"), task(5));
      t.equal(await neighbour(6, "b", "after"), task(3));
      t.equal(await neighbour(4, "b", "after", task(5)), task(6), "excludeId is skipped");
      t.equal(await neighbour(1, "d", "after"), null, "the last task has none after");
      t.equal(await neighbour(2, "a", "before"), null, "the first has none before");
    },
  },
  {
    name: "task ranks: withRank answers a tie group of the project in id order, at most `limit`",
    run: async (t, run) => {
      const project = await run(seed);
      t.same(ids(await run(ranks((r) => r.withRank(project.id, "b", 10)))), [task(4), task(5), task(6)], "not project 2's task of the same rank");
      t.same(ids(await run(ranks((r) => r.withRank(project.id, "b", 2)))), [task(4), task(5)]);
      t.same(ids(await run(ranks((r) => r.withRank(project.id, "zz", 10)))), []);
    },
  },
  {
    name: "task ranks: lockTasks answers the given tasks as they are now, in id order",
    run: async (t, run) => {
      await run(seed);
      const locked = await run(ranks((r) => r.lockTasks([task(6), task(2), task(4)])));
      t.same(ids(locked), [task(2), task(4), task(6)]);
      t.equal(locked[0]?.rank, "a");
      t.same(ids(await run(ranks((r) => r.lockTasks([uid("task", 99)])))), [], "an unknown id locks nothing");
    },
  },
  {
    name: "task ranks: a locked task is locked until the transaction ends; a second lock answers it as committed",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const project = await run(seed);
      const moved = taskRecord(project, task(4), { rank: "e", version: 2, updatedAt: at(50) });
      const outcome = await run(
        contendWith(
          Effect.asVoid(ranks((r) => r.lockTasks([task(4), task(2)]))),
          Effect.flatMap(TasksRepository, (r) => r.updateTask(moved, 1)),
          ranks((r) => r.lockTasks([task(4)])),
        ),
      );
      t.equal(outcome.finishedWhileHeld, false, "the second lock waits for the first transaction");
      t.same(outcome.result, [moved], "then answers the task as the first committed it");
    },
  },
];

/** Runs the task ranks kit. */
export const taskRanksSuite = (options: SuiteOptions<TaskRanksKitPorts>): Promise<unknown> => runCases(options, taskRanksCases);
