/**
 * Task reads: one task (deleted ones too, so a client can see and restore them) and the
 * project's live task list, keyset-paginated by (rank, id) with the kernel cursor codec.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireRight, requireUser, taskAccess } from "./Access.js";
import type { Task } from "./Records.js";
import type { TaskStatus } from "./TaskWorkflow.js";

type ReadServices = WorkspacesRepository | ProjectsRepository | TasksRepository;

/** A page of rows plus the cursor of the next page (null on the last). */
export interface PageOf<A> {
  readonly data: ReadonlyArray<A>;
  readonly nextCursor: string | null;
}

/** Shapes a page from `limit + 1` rows: the extra row only proves a next page exists. */
export const pageFrom = <A>(rows: ReadonlyArray<A>, limit: number, keysOf: (row: A) => ReadonlyArray<string>): PageOf<A> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keysOf(last)) : null };
};

/** Reads a task the caller can see. */
export const getTask = (principal: Principal, taskId: string): Effect.Effect<Task, Forbidden | NotFound, ReadServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    return task;
  }).pipe(Effect.withSpan("Projects.getTask"));

const RankCursor = Schema.Tuple(Schema.String, Schema.String);

/** The project's live tasks in (rank, id) order, one page after `cursor`. */
export const listTasks = (
  principal: Principal,
  projectId: string,
  query: { readonly status?: TaskStatus | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<PageOf<Task>, Forbidden | NotFound | InvalidCursor, ReadServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "read");
    const after = query.cursor === undefined ? undefined : yield* decodeCursor(RankCursor, query.cursor);
    const rows = yield* (yield* TasksRepository).listTasks({
      projectId,
      status: query.status,
      after: after === undefined ? undefined : { rank: after[0], id: after[1] },
      limit: query.limit + 1,
    });
    return pageFrom(rows, query.limit, (task) => [task.rank, task.id]);
  }).pipe(Effect.withSpan("Projects.listTasks"));
