/**
 * The TasksRepository port over `pm_tasks` and the append-only `pm_task_events`. The
 * conditional update carries `AND version = ?`, so the database decides which of two racing
 * writers wins. Lists are keyset queries on (rank, id) and (created_at, id).
 */
import { Effect } from "effect";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { taskEventFromRow, taskFromRow, taskToRow } from "./projectRows.js";

/** Builds the task repository over `db`. */
export const makeSqlTasksRepository = (db: SqlDatabase): TasksRepository => {
  const f = featuresFor(db);
  return {
    insertTask: (task) =>
      runQuery(db, (ex) => ex.insertInto("pm_tasks").values(taskToRow(f, task)).execute()).pipe(
        Effect.asVoid,
        Effect.withSpan("TasksRepository.insertTask"),
      ),
    findTask: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_tasks").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : taskFromRow(f, r))),
        Effect.withSpan("TasksRepository.findTask"),
      ),
    updateTask: (task, expectedVersion) =>
      runQuery(db, (ex) => {
        const { id: _id, workspace_id: _w, project_id: _p, created_by: _b, created_at: _c, ...changes } = taskToRow(f, task);
        return ex
          .updateTable("pm_tasks")
          .set(changes)
          .where("id", "=", task.id)
          .where("version", "=", expectedVersion)
          .executeTakeFirst();
      }).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows) === 1),
        Effect.withSpan("TasksRepository.updateTask"),
      ),
    lastRank: (projectId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_tasks").select("rank").where("project_id", "=", projectId).orderBy("rank", "desc").limit(1).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : String(r.rank)))),
    listTasks: ({ projectId, status, after, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_tasks").selectAll().where("project_id", "=", projectId).where("deleted_at", "is", null);
        if (status !== undefined) query = query.where("status", "=", status);
        if (after !== undefined) {
          // A row-value comparison, so both databases seek the (project, rank, id) index to the cursor.
          query = query.where((eb) => eb(eb.refTuple("rank", "id"), ">", eb.tuple(after.rank, after.id)));
        }
        return query.orderBy("rank").orderBy("id").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => taskFromRow(f, r))),
        Effect.withSpan("TasksRepository.listTasks"),
      ),
    appendEvent: (e) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_task_events")
          .values({
            id: e.id,
            workspace_id: e.workspaceId,
            project_id: e.projectId,
            task_id: e.taskId,
            actor_id: e.actorId,
            kind: e.kind,
            data: f.jsonToDb(e.data),
            created_at: f.timeToDb(e.createdAt),
          })
          .execute(),
      ).pipe(Effect.asVoid, Effect.withSpan("TasksRepository.appendEvent")),
    listEvents: ({ projectIds, before, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_task_events").selectAll().where("project_id", "in", [...projectIds]);
        if (before !== undefined) {
          const at = f.timeToDb(new Date(before.createdAt));
          // A row-value comparison: the index seeks to the cursor instead of filtering every newer row.
          query = query.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(at, before.id)));
        }
        return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => taskEventFromRow(f, r))),
        Effect.withSpan("TasksRepository.listEvents"),
      ),
  };
};
