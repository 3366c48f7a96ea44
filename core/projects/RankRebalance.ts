/**
 * Rank rebalance (spec rule 4 and resource rule 6) as a durable background job: it walks one
 * project's full order in bounded batches and rewrites, one row per short transaction, the
 * keys that collide with a neighbour or grew long. Each row is locked together with its current
 * neighbours only (no global lock), re-read after locking and written with a version check; the
 * new key lies strictly between the neighbours' keys (the last row only ever moves down), so
 * the (rank, id) order is the same before and after every single write, whatever moves run
 * concurrently.
 */
import { Effect, Schema } from "effect";
import { advance } from "../kernel/Versioning.js";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { TaskRanks } from "../../ports/projects/TaskRanks.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { now } from "../kernel/Clock.js";
import { rankBetween } from "./Rank.js";
import { TaskOrderChanged } from "./Errors.js";
import type { Task } from "./model/Task.js";
import { recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import { ProjectId, TaskId } from "./model/Ids.js";

/** The job kind of a project's rank rebalance. */
export const rankRebalanceJobKind = "projects.rank_rebalance";
/** Keys longer than this are shortened by a rebalance (moves schedule one when they produce such a key). */
export const longRankLength = 12;
/** The actor recorded on rebalance TaskEvents. */
export const rebalanceActor = "system:rank-rebalance";

export { TaskOrderChanged };

/** `n` increasing keys strictly between `lower` and `upper` (null: open end), balanced so they stay short. */
export const ranksBetween = (lower: string | null, upper: string | null, n: number): string[] => {
  if (n <= 0) return [];
  const middle = rankBetween(lower, upper);
  const left = Math.floor((n - 1) / 2);
  return [...ranksBetween(lower, middle, left), middle, ...ranksBetween(middle, upper, n - 1 - left)];
};

/** Identity of what a plan read: ids, ranks and versions; equal fingerprints mean nothing moved. */
export const fingerprint = (tasks: ReadonlyArray<Task | null>): string =>
  tasks.map((t) => (t === null ? "-" : `${t.id}@${t.rank}#${t.version}`)).join("|");

/** Runs a plan-lock-verify-apply step, retrying (fresh reads) while the order changed meanwhile. */
export const retryOnOrderChange = <A, E, R>(step: Effect.Effect<A, E | TaskOrderChanged, R>, times = 8) =>
  Effect.retry(step, { times, while: (e) => (e as { _tag?: unknown })._tag === "TaskOrderChanged" });

/** Writes a new rank with the version check and records the TaskChanged fact. */
export const writeRank = (task: Task, rank: string, actorId: string) =>
  Effect.gen(function* () {
    const next: Task = { ...task, rank, version: advance(task.version), updatedAt: yield* now };
    if (!(yield* (yield* TasksRepository).updateTask(next, task.version))) return yield* Effect.fail(new TaskOrderChanged({}));
    yield* recordTaskFact({ task: next, actorId, kind: "task.updated", data: { changes: { rank: { from: task.rank, to: rank } } } });
    return next;
  });

type RebalanceServices = TaskRanks | TasksRepository | Transactions | Outbox | Ids;

const plan = (ranks: TaskRanks, tasks: TasksRepository, taskId: TaskId) =>
  Effect.gen(function* () {
    const task = yield* tasks.findTask(taskId);
    if (task === null) return null;
    const of = { rank: task.rank, id: task.id };
    const previous = yield* ranks.neighbour({ projectId: task.projectId, of, direction: "before" });
    const next = yield* ranks.neighbour({ projectId: task.projectId, of, direction: "after" });
    return { task, previous, next };
  });

/** Rebalances one row: "moved" when its key was rewritten, "kept" otherwise. */
export const rebalanceRow = (taskId: TaskId): Effect.Effect<"moved" | "kept", TaskOrderChanged, RebalanceServices> =>
  retryOnOrderChange(
      Effect.flatMap(Effect.all([TaskRanks, TasksRepository, Transactions]), ([ranks, tasks, tx]) =>
        tx.run(
          Effect.gen(function* () {
            const seen = yield* plan(ranks, tasks, taskId);
            if (seen === null) return "kept" as const;
            const ids = [seen.previous, seen.task, seen.next].flatMap((t) => (t === null ? [] : [t.id]));
            yield* ranks.lockTasks(ids);
            const locked = yield* plan(ranks, tasks, taskId);
            if (locked === null) return "kept" as const;
            if (fingerprint([seen.previous, seen.task, seen.next]) !== fingerprint([locked.previous, locked.task, locked.next])) {
              return yield* Effect.fail(new TaskOrderChanged({}));
            }
            const { task, previous, next } = locked;
            const tiedPrevious = previous !== null && previous.rank === task.rank;
            const tiedNext = next !== null && next.rank === task.rank;
            const long = task.rank.length > longRankLength;
            if (!tiedPrevious && !tiedNext && !long) return "kept" as const;
            const lower = previous?.rank ?? null;
            // The last row only moves down: a concurrent create appends after the key it read.
            const upper = next?.rank ?? task.rank;
            if (lower !== null && lower >= upper) return "kept" as const;
            const candidate = rankBetween(lower, upper);
            const better = tiedPrevious || tiedNext ? candidate !== task.rank : candidate.length < task.rank.length;
            if (!better || candidate === upper) return "kept" as const;
            yield* writeRank(task, candidate, rebalanceActor);
            return "moved" as const;
          }),
        ),
      ),
  );

/** One bounded batch of a project's rebalance, after `after`; answers where the next batch starts. */
export const rebalanceBatch = (
  projectId: ProjectId,
  after: { readonly rank: string; readonly id: TaskId } | undefined,
  limit: number,
): Effect.Effect<{ readonly processed: number; readonly moved: number; readonly next: { rank: string; id: TaskId } | null }, never, RebalanceServices> =>
  Effect.gen(function* () {
    const rows = yield* (yield* TaskRanks).slice({ projectId, after, limit });
    let moved = 0;
    for (const row of rows) {
      // A row that keeps racing with user moves is left as it is: skipping never breaks the order.
      const outcome = yield* rebalanceRow(row.id).pipe(Effect.catchTag("TaskOrderChanged", () => Effect.succeed("kept" as const)));
      if (outcome === "moved") moved += 1;
    }
    const last = rows[rows.length - 1];
    if (rows.length < limit || last === undefined) return { processed: rows.length, moved, next: null };
    const current = yield* (yield* TasksRepository).findTask(last.id);
    return { processed: rows.length, moved, next: { rank: current?.rank ?? last.rank, id: last.id } };
  }).pipe(withSpan("Projects.rebalanceBatch"));

/** Schedules a project's rebalance (one unfinished job per project). */
export const scheduleRankRebalance = (projectId: ProjectId) =>
  Effect.gen(function* () {
    yield* rankRebalanceJob.schedule({ project_id: projectId }, { runAt: yield* now, key: projectId });
  });

/** Rows per job run. */
export const rebalanceBatchSize = 200;
/**
 * Passes per rebalance: an in-place pass can only shorten a key once its neighbours leave room,
 * so a pass that rewrote rows is followed by another, up to this bound.
 */
export const maxRebalancePasses = 4;

/** Where a rebalance run starts: the project, the last row done, the pass and rows moved so far. */
const RebalancePayload = Schema.Struct({
  project_id: ProjectId,
  after: Schema.optional(Schema.Struct({ rank: Schema.String, id: TaskId })),
  pass: Schema.optional(Schema.Int),
  moved: Schema.optional(Schema.Int),
});
type RebalancePayload = typeof RebalancePayload.Type;

/** The job handler: one batch, then a continuation job keyed by where it stopped (or the next pass). */
export const rankRebalanceJob: JobDefinition<RebalancePayload, RebalanceServices | Jobs> = defineJob({
  kind: rankRebalanceJobKind,
  payload: RebalancePayload,
  handle: (payload) =>
    Effect.gen(function* () {
      const pass = payload.pass ?? 1;
      const result = yield* rebalanceBatch(payload.project_id, payload.after, rebalanceBatchSize);
      const moved = (payload.moved ?? 0) + result.moved;
      let next: RebalancePayload | null = null;
      if (result.next !== null) next = { project_id: payload.project_id, after: result.next, pass, moved };
      else if (moved > 0 && pass < maxRebalancePasses) next = { project_id: payload.project_id, pass: pass + 1, moved: 0 };
      if (next === null) return;
      yield* rankRebalanceJob.schedule(next, { runAt: yield* now, key: `${payload.project_id}:${next.pass}:${next.after === undefined ? "start" : `${next.after.id}:${next.after.rank}`}` });
    }),
});

/** The rebalance job under its former name (hosts/modules/projectsModule.ts). */
export const rankRebalanceJobHandler = rankRebalanceJob;
