/**
 * Ordering primitives for task moves and rank rebalance: neighbours in a project's full order
 * (deleted tasks included, so a move lands between two ids whatever is hidden between them) and
 * row locks taken in id order (no global lock; a fixed order cannot deadlock).
 */
import { Context, Effect } from "effect";
import type { Task } from "../../core/projects/model/Task.js";
import type { RankKey } from "./TasksRepository.js";

/** The rank port. */
export interface TaskRanks {
  /**
   * Locks the given tasks until the transaction ends (FOR UPDATE in id order on Postgres; SQLite's
   * write transaction already excludes other writers) and answers them as they are now.
   */
  readonly lockTasks: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Task>>;
  /** The task next to `of` in (rank, id) order, in either direction, skipping `excludeId`. */
  readonly neighbour: (req: {
    readonly projectId: string;
    readonly of: RankKey;
    readonly direction: "before" | "after";
    readonly excludeId?: string | undefined;
  }) => Effect.Effect<Task | null>;
  /** Tasks of the project with exactly `rank`, in id order, at most `limit` (a tie group). */
  readonly withRank: (projectId: string, rank: string, limit: number) => Effect.Effect<ReadonlyArray<Task>>;
  /** Up to `limit` tasks (deleted too) in (rank, id) order strictly after `after`. */
  readonly slice: (req: { readonly projectId: string; readonly after?: RankKey | undefined; readonly limit: number }) => Effect.Effect<
    ReadonlyArray<Task>
  >;
}
export const TaskRanks = Context.GenericTag<TaskRanks>("domainkit/projects/TaskRanks");
