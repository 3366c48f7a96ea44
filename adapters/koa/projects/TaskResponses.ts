/**
 * How task routes answer: the wire view with its ETag, and a stale-version 412 whose `current`
 * is the same snake_case view a GET returns (the core carries the domain task).
 */
import { Effect, Schema } from "effect";
import { VersionMismatch } from "../../../core/kernel/Errors.js";
import { Task } from "../../../core/projects/model/Task.js";
import { toWire } from "../../../core/kernel/Wire.js";
import type { RouteResponse } from "../EffectHandler.js";

/** A task answer: its view as the body and its version as the ETag. */
export const taskResponse = (status: number) => (task: Task): RouteResponse => ({ status, body: task, etag: task.version });

const isTask = Schema.is(Task);

/** A stale-version 412 with its `current` task as the view every task answer has; other errors unchanged. */
export const currentAsTaskView = <E>(error: E): E =>
  error instanceof VersionMismatch && isTask(error.current)
    ? (new VersionMismatch({ current: toWire(Task, error.current), ...(error.detail !== undefined ? { detail: error.detail } : {}) }) as E)
    : error;

/** Runs a task command, answering with the task view; a 412 carries the current task as a view too. */
export const answerTask = <E, R>(status: number, command: Effect.Effect<Task, E, R>): Effect.Effect<RouteResponse, E, R> =>
  command.pipe(Effect.map(taskResponse(status)), Effect.mapError(currentAsTaskView));
