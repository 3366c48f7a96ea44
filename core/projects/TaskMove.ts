/**
 * Moving a task (POST /v1/tasks/:id/move, spec rule 4): the task lands right after `before_id`
 * (or right before `after_id` when only that is given), i.e. between two neighbours of the
 * project's full order — deleted and hidden tasks included, so it lands between the two ids
 * the client saw even when such tasks sit between them. The moved task, the anchor and its
 * neighbour are locked in id order and re-read; a changed order retries with fresh reads. When
 * the neighbours share one rank, the anchor's part of that tie group is spread to distinct keys
 * below it in the same transaction, and a rebalance is scheduled. An expected version (If-Match,
 * optional) is checked first on the locked re-read, after the anchors' 422 and before the trash
 * rule: a stale one answers 412 with the current task; the rank write is conditional on the
 * version read, and a lost race re-reads and meets the check again.
 */
import { Effect } from "effect";
import { ValidationFailed, type Forbidden, type NotFound, type VersionMismatch } from "../kernel/Errors.js";
import { versionMismatch } from "../kernel/Versioning.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { TaskRanks } from "../../ports/projects/TaskRanks.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import type { TaskServices } from "./CreateTask.js";
import { TaskDeleted } from "./Errors.js";
import { rankBetween } from "./Rank.js";
import {
  fingerprint,
  longRankLength,
  ranksBetween,
  retryOnOrderChange,
  scheduleRankRebalance,
  TaskOrderChanged,
  writeRank,
} from "./RankRebalance.js";
import type { Task } from "./model/Task.js";
import { withSpan } from "../kernel/Span.js";
import type { TaskId } from "./model/Ids.js";

/** Where to put the task, and the version the caller saw (If-Match). */
export interface TaskMoveTarget {
  readonly beforeId?: TaskId | undefined;
  readonly afterId?: TaskId | undefined;
  /** The task version the caller saw; a stale one answers 412. Without it the move is unconditional. */
  readonly expectedVersion?: number | undefined;
}

/** The largest tie group a move spreads inline (larger ones are left to the rebalance job). */
export const maxInlineTieGroup = 1000;

const invalid = (path: string, message: string) => new ValidationFailed({ errors: [{ path, message }] });

const orderKey = (t: Task) => [t.rank, t.id] as const;
const comesBefore = (a: Task, b: Task): boolean => {
  const [ar, ai] = orderKey(a);
  const [br, bi] = orderKey(b);
  return ar < br || (ar === br && ai < bi);
};

interface Plan {
  readonly task: Task;
  readonly lower: Task | null;
  readonly upper: Task | null;
  /** Tasks tied with `lower` up to and including it, when lower and upper share one rank. */
  readonly tieGroup: ReadonlyArray<Task>;
  /** The task before the tie group (its key bounds the spread). */
  readonly floor: Task | null;
}

const anchor = (tasks: TasksRepository, id: string, path: string, task: Task) =>
  Effect.flatMap(tasks.findTask(id), (found) =>
    found === null || found.projectId !== task.projectId || found.id === task.id
      ? Effect.fail(invalid(path, "must be another task of the same project"))
      : Effect.succeed(found),
  );

const makePlan = (ranks: TaskRanks, tasks: TasksRepository, taskId: TaskId, target: TaskMoveTarget) =>
  Effect.gen(function* () {
    const task = yield* tasks.findTask(taskId);
    if (task === null) return yield* Effect.fail(new TaskOrderChanged({}));
    const projectId = task.projectId;
    const near = (of: Task, direction: "before" | "after") =>
      ranks.neighbour({ projectId, of: { rank: of.rank, id: of.id }, direction, excludeId: task.id });
    let lower: Task | null;
    let upper: Task | null;
    if (target.beforeId !== undefined) {
      lower = yield* anchor(tasks, target.beforeId, "before_id", task);
      upper = yield* near(lower, "after");
      if (target.afterId !== undefined) {
        const after = yield* anchor(tasks, target.afterId, "after_id", task);
        if (!comesBefore(lower, after)) return yield* Effect.fail(invalid("after_id", "must come after before_id in the task order"));
      }
    } else {
      upper = yield* anchor(tasks, target.afterId!, "after_id", task);
      lower = yield* near(upper, "before");
    }
    let tieGroup: ReadonlyArray<Task> = [];
    let floor: Task | null = null;
    if (lower !== null && upper !== null && lower.rank === upper.rank) {
      const group = yield* ranks.withRank(projectId, lower.rank, maxInlineTieGroup + 2);
      if (group.length > maxInlineTieGroup + 1) return yield* Effect.fail(new TaskOrderChanged({ detail: "tie group too large" }));
      tieGroup = group.filter((t) => t.id !== task.id && !comesBefore(lower!, t));
      floor = yield* near(tieGroup[0]!, "before");
    }
    return { task, lower, upper, tieGroup, floor } satisfies Plan;
  });

const planFingerprint = (p: Plan) => fingerprint([p.task, p.lower, p.upper, p.floor, ...p.tieGroup]);

/** Moves a task between two neighbours (contributor or above); answers the moved task. */
export const moveTask = (
  principal: Principal,
  taskId: TaskId,
  target: TaskMoveTarget,
): Effect.Effect<Task, Forbidden | NotFound | ValidationFailed | VersionMismatch | TaskDeleted | TaskOrderChanged, TaskServices | TaskRanks | Jobs> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    if (target.beforeId === undefined && target.afterId === undefined) {
      return yield* Effect.fail(invalid("before_id", "give before_id, after_id or both"));
    }
    const ranks = yield* TaskRanks;
    const tasks = yield* TasksRepository;
    const tx = yield* Transactions;
    const attempt = tx.run(
      Effect.gen(function* () {
        const seen = yield* makePlan(ranks, tasks, taskId, target);
        const ids = [seen.task, seen.lower, seen.upper, seen.floor, ...seen.tieGroup].flatMap((t) => (t === null ? [] : [t.id]));
        yield* ranks.lockTasks([...new Set(ids)]);
        const plan = yield* makePlan(ranks, tasks, taskId, target);
        if (planFingerprint(seen) !== planFingerprint(plan)) return yield* Effect.fail(new TaskOrderChanged({}));
        const expected = target.expectedVersion;
        if (expected !== undefined && expected !== plan.task.version) return yield* Effect.fail(versionMismatch(plan.task, expected));
        if (plan.task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
        let rank: string;
        if (plan.tieGroup.length > 0) {
          // lower and upper share one rank: give lower's side of the tie distinct keys below it.
          const keys = ranksBetween(plan.floor?.rank ?? null, plan.upper!.rank, plan.tieGroup.length + 1);
          for (const [i, member] of plan.tieGroup.entries()) yield* writeRank(member, keys[i]!, userId);
          rank = keys[keys.length - 1]!;
        } else {
          rank = rankBetween(plan.lower?.rank ?? null, plan.upper?.rank ?? null);
        }
        const moved = yield* writeRank(plan.task, rank, userId);
        if (plan.tieGroup.length > 0 || rank.length > longRankLength) yield* scheduleRankRebalance(moved.projectId);
        return moved;
      }),
    );
    return yield* retryOnOrderChange(attempt);
  }).pipe(withSpan("Projects.moveTask"));
