/** Storage of task dependencies (blocked-by edges). */
import { Context, Effect } from "effect";
import type { TaskDependency } from "../../core/projects/model/TaskDependency.js";
import type { TaskId } from "../../core/projects/model/Ids.js";

/** The dependency repository. */
export interface DependenciesRepository {
  /**
   * Serializes dependency changes of one project for the rest of the transaction (the project
   * row lock on Postgres; SQLite's write transaction already does), so two concurrent edges
   * cannot close a cycle that neither saw.
   */
  readonly lockProject: (projectId: string) => Effect.Effect<void>;
  /** True when `to` is reachable from `from` following blocked-by edges. */
  readonly reaches: (from: string, to: string) => Effect.Effect<boolean>;
  /** Inserts an edge; false when it already existed. */
  readonly insertDependency: (dependency: TaskDependency) => Effect.Effect<boolean>;
  readonly deleteDependency: (taskId: string, blockedById: string) => Effect.Effect<boolean>;
  /** The ids blocking `taskId` and the ids it blocks (bounded: at most 200 edges per task). */
  readonly dependenciesOf: (taskId: string) => Effect.Effect<{ readonly blockedBy: ReadonlyArray<TaskId>; readonly blocking: ReadonlyArray<TaskId> }>;
  readonly countEdges: (taskId: string) => Effect.Effect<number>;
  /** Appends one entry to the append-only dependency audit (who added or removed an edge, and why). */
  readonly appendAudit: (entry: DependencyAuditEntry) => Effect.Effect<void>;
}

/** One entry of the dependency audit. */
export interface DependencyAuditEntry {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly blockedById: string;
  readonly actorId: string;
  readonly action: "dependency.added" | "dependency.removed";
  readonly reason: string;
  readonly createdAt: Date;
}
export const DependenciesRepository = Context.GenericTag<DependenciesRepository>("domainkit/projects/DependenciesRepository");
