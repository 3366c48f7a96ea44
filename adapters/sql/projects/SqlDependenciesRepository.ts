/**
 * The DependenciesRepository port over `pm_task_dependencies` and `pm_dependency_audit`. Reachability is one recursive
 * query (UNION, so it terminates on any graph); the per-project lock is the project row
 * `FOR UPDATE` on Postgres, while SQLite's BEGIN IMMEDIATE already serializes writers.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import { TaskDependency } from "../../../core/projects/model/TaskDependency.js";
import type { DependenciesRepository } from "../../../ports/projects/DependenciesRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { TaskId } from "../../../core/projects/model/Ids.js";

/** Builds the dependency repository over `db`. */
export const makeSqlDependenciesRepository = (db: SqlDatabase): DependenciesRepository => {
  const f = featuresFor(db);
  const dependencies = rowCodec(TaskDependency, f);
  return {
    // NO KEY UPDATE: serializes the project's dependency edits without holding up task inserts
    // (their foreign key's KEY SHARE on the project).
    lockProject: (projectId) =>
      db.dialect === "postgres"
        ? runQuery(db, (ex) => lockRow(db, ex.selectFrom("pm_projects").select("id").where("id", "=", projectId), true, "no key update").execute()).pipe(Effect.asVoid)
        : Effect.void,
    reaches: (from, to) =>
      runQuery(db, async (ex) => {
        const result = await sql<{ found: number }>`
          WITH RECURSIVE reach(id) AS (
            SELECT blocked_by_id FROM pm_task_dependencies WHERE task_id = ${from}
            UNION
            SELECT d.blocked_by_id FROM pm_task_dependencies d JOIN reach r ON d.task_id = r.id
          )
          SELECT 1 AS found FROM reach WHERE id = ${to} LIMIT 1`.execute(ex);
        return result.rows.length > 0;
      }),
    insertDependency: (d) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_task_dependencies")
          .values(dependencies.toRow(d))
          .onConflict((oc) => oc.columns(["task_id", "blocked_by_id"]).doNothing())
          .returning("task_id")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => r !== undefined)),
    deleteDependency: (taskId, blockedById) =>
      runQuery(db, (ex) =>
        ex.deleteFrom("pm_task_dependencies").where("task_id", "=", taskId).where("blocked_by_id", "=", blockedById).executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numDeletedRows) === 1)),
    dependenciesOf: (taskId) =>
      runQuery(db, async (ex) => {
        const blockedBy = await ex.selectFrom("pm_task_dependencies").select("blocked_by_id").where("task_id", "=", taskId).orderBy("blocked_by_id").limit(200).execute();
        const blocking = await ex.selectFrom("pm_task_dependencies").select("task_id").where("blocked_by_id", "=", taskId).orderBy("task_id").limit(200).execute();
        return { blockedBy: blockedBy.map((r) => TaskId.make(String(r.blocked_by_id))), blocking: blocking.map((r) => TaskId.make(String(r.task_id))) };
      }),
    appendAudit: (entry) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_dependency_audit")
          .values({
            id: entry.id,
            workspace_id: entry.workspaceId,
            project_id: entry.projectId,
            task_id: entry.taskId,
            blocked_by_id: entry.blockedById,
            actor_id: entry.actorId,
            action: entry.action,
            reason: entry.reason,
            created_at: f.timeToDb(entry.createdAt),
          })
          .execute(),
      ).pipe(Effect.asVoid),
    countEdges: (taskId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_task_dependencies").select((eb) => eb.fn.countAll().as("n")).where((eb) => eb.or([eb("task_id", "=", taskId), eb("blocked_by_id", "=", taskId)])).executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
  };
};
