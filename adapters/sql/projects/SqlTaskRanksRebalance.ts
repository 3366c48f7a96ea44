/**
 * The TaskRanks port over `pm_tasks` (used by task moves and the rank rebalance). Neighbours
 * are keyset queries on the (project_id, rank, id) index over the full order, deleted tasks
 * included. Locks are `FOR UPDATE` in id order on Postgres — the dialect switch stays in this
 * file; on SQLite the write transaction (BEGIN IMMEDIATE) already excludes every other writer.
 */
import { Effect } from "effect";
import { Task } from "../../../core/projects/model/Task.js";
import type { TaskRanks } from "../../../ports/projects/TaskRanks.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the rank port over `db`. */
export const makeSqlTaskRanks = (db: SqlDatabase): TaskRanks => {
  const tasks = rowCodec(Task, featuresFor(db));
  return {
    lockTasks: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => {
            return lockRow(db, ex.selectFrom("pm_tasks").selectAll().where("id", "in", [...ids]).orderBy("id"), true).execute();
          }).pipe(
            Effect.map((rows) => rows.map((r) => tasks.fromRow(r))),
            withSpan("TaskRanks.lockTasks"),
          ),
    neighbour: ({ projectId, of, direction, excludeId }) =>
      runQuery(db, (ex) => {
        const after = direction === "after";
        let query = ex
          .selectFrom("pm_tasks")
          .selectAll()
          .where("project_id", "=", projectId)
          .where((eb) =>
            eb.or([
              eb("rank", after ? ">" : "<", of.rank),
              eb.and([eb("rank", "=", of.rank), eb("id", after ? ">" : "<", of.id)]),
            ]),
          );
        if (excludeId !== undefined) query = query.where("id", "<>", excludeId);
        return query
          .orderBy("rank", after ? "asc" : "desc")
          .orderBy("id", after ? "asc" : "desc")
          .limit(1)
          .executeTakeFirst();
      }).pipe(Effect.map((r) => (r === undefined ? null : tasks.fromRow(r)))),
    withRank: (projectId, rank, limit) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_tasks").selectAll().where("project_id", "=", projectId).where("rank", "=", rank).orderBy("id").limit(limit).execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => tasks.fromRow(r)))),
    slice: ({ projectId, after, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_tasks").selectAll().where("project_id", "=", projectId);
        if (after !== undefined) {
          query = query.where((eb) => eb(eb.refTuple("rank", "id"), ">", eb.tuple(after.rank, after.id)));
        }
        return query.orderBy("rank").orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => tasks.fromRow(r)))),
  };
};
