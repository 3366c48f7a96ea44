/**
 * The task status workflow as an explicit transition table (state machines are
 * tables). Default statuses: todo -> in_progress -> done; work can stop (in_progress -> todo)
 * and a done task can be reopened (done -> todo). Skipping work (todo -> done) or resuming a
 * done task without reopening it (done -> in_progress) is not in the table: 409
 * illegal_status_transition. Staying in place is not a move.
 */
import { Effect } from "effect";
import { TaskStatus } from "./model/Task.js";
import { IllegalStatusTransition } from "./Errors.js";

export { TaskStatus };

/** A new task starts here unless the request names another status. */
export const initialStatus: TaskStatus = "todo";

/** (from) -> the statuses it may move to. */
export const transitions: Readonly<Record<TaskStatus, ReadonlyArray<TaskStatus>>> = {
  todo: ["in_progress"],
  in_progress: ["todo", "done"],
  done: ["todo"],
};

/** True when the table has the edge from -> to. */
export const canMove = (from: TaskStatus, to: TaskStatus): boolean => transitions[from].includes(to);

/** Succeeds with `to` when the move is legal (or no move at all), else IllegalStatusTransition. */
export const moveStatus = (from: TaskStatus, to: TaskStatus): Effect.Effect<TaskStatus, IllegalStatusTransition> =>
  from === to || canMove(from, to)
    ? Effect.succeed(to)
    : Effect.fail(new IllegalStatusTransition({ from, to, detail: `A task cannot move from ${from} to ${to}.` }));
