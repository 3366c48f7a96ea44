/**
 * The ExportsRepository port: `pm_exports` rows, and keyset pages ((project_id, id) order,
 * filtered by a ProjectScope in the query: projectScopeSql) over the project tables an export
 * streams.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import { Attachment } from "../../../core/projects/model/Attachment.js";
import { Comment } from "../../../core/projects/model/Comment.js";
import { Project } from "../../../core/projects/model/Project.js";
import { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import { Task } from "../../../core/projects/model/Task.js";
import { TaskEvent } from "../../../core/projects/model/TaskEvent.js";
import { WorkspaceExport } from "../../../core/projects/model/WorkspaceExport.js";
import type { ExportPage, ExportsRepository } from "../../../ports/projects/ExportsRepository.js";
import { isEmptyScope, projectScopeSql } from "./ProjectScopeSql.js";
import { isListedScope } from "../../../ports/projects/ProjectScope.js";
import { readRoles } from "./ProjectRoles.js";
import { featuresFor } from "../featuresFor.js";
import { compiledInsert, runQuery, runStatement } from "../runQuery.js";
import { rowCodec, type Row } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the export repository over `db`. */
export const makeSqlExportsRepository = (db: SqlDatabase): ExportsRepository => {
  const f = featuresFor(db);
  const exports = rowCodec(WorkspaceExport, f);
  const members = rowCodec(ProjectMember, f);
  const insertExportRow = compiledInsert("pm_exports", exports);
  const projects = rowCodec(Project, f);
  /**
   * One keyset page of `table` in (project_id, id) order over the scope's projects (an empty list:
   * no query at all). Each statement walks the table's (project_id, id) index (`byWorkspace`:
   * pm_tasks' unique (workspace_id, project_id, id), with the page's workspace) and reads about
   * the rows it returns: past a cursor, the rest of the cursor's project, then while the page is
   * not full the projects after it. Elsewhere the workspace is left out of the statement: a list's
   * projects are of it, and with it Postgres underestimates a project's rows and sorts them all.
   */
  const page = <A>(table: string, map: (r: Row) => A, byWorkspace = false) => (given: ExportPage): Effect.Effect<ReadonlyArray<A>> => {
    // A list in any order is walked in project id order (code-unit order, which the database's
    // order of the module's UUID-shaped ids is under any collation).
    const req: ExportPage = isListedScope(given) ? { ...given, projectIds: [...given.projectIds].sort() } : given;
    return isEmptyScope(req)
      ? Effect.succeed([])
      : runQuery(db, async (ex) => {
          const rows = () => {
            const query = ex.selectFrom(table).selectAll();
            return !byWorkspace || req.workspaceId === undefined ? query : query.where("workspace_id", "=", req.workspaceId);
          };
          const scoped = () => rows().where(projectScopeSql(table, req));
          const after = req.after;
          if (after === undefined) return scoped().orderBy("project_id").orderBy("id").limit(req.limit).execute();
          // The rest of the cursor's project: a seek to (project_id, id) (a list is checked here,
          // not bound: with it, planners leave the seek).
          const inScope = !isListedScope(req) || req.projectIds.includes(after.projectId);
          let rest = rows().where("project_id", "=", after.projectId).where("id", ">", after.id);
          if (!isListedScope(req)) rest = rest.where(projectScopeSql(table, req));
          const head = inScope ? await rest.orderBy("id").limit(req.limit).execute() : [];
          if (head.length === req.limit) return head;
          // Then the projects after it: a list's are those after the cursor's project in it, each
          // walked by its seek (no range on project_id in the statement, which planners prefer and
          // then sort); otherwise, or for a cursor's project not listed, a bound on (project_id, id).
          const listed = isListedScope(req) && inScope ? req.projectIds.slice(req.projectIds.indexOf(after.projectId) + 1) : undefined;
          if (listed?.length === 0) return head;
          const next =
            listed === undefined
              ? scoped().where((eb) => eb(eb.refTuple("project_id", "id"), ">", eb.tuple(after.projectId, after.id)))
              : rows().where(projectScopeSql(table, { projectIds: listed }));
          const tail = await next.orderBy("project_id").orderBy("id").limit(req.limit - head.length).execute();
          return [...head, ...tail];
        }).pipe(Effect.map((rows) => rows.map(map)));
  };
  return {
    insertExport: (e) =>
      runStatement(db, insertExportRow, e).pipe(Effect.asVoid),
    findExport: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_exports").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : exports.fromRow(r))),
      ),
    finishExport: (e) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_exports")
          .set({
            status: e.status,
            size: e.size,
            sha256: e.sha256,
            line_count: e.lineCount,
            error: e.error,
            completed_at: e.completedAt === null ? null : f.timeToDb(e.completedAt),
          })
          .where("id", "=", e.id)
          .where("status", "=", "pending")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    exportsToExpire: (cutoff, limit) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_exports")
          .selectAll()
          // A literal, the partial index's own predicate (pm_exports_expiry, migration 18).
          .where("status", "=", sql.lit("done"))
          .where("completed_at", "<", f.timeToDb(cutoff))
          .orderBy("completed_at")
          .orderBy("id")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => exports.fromRow(r)))),
    markExpired: (id) =>
      runQuery(db, (ex) => ex.updateTable("pm_exports").set({ status: "expired" }).where("id", "=", id).where("status", "=", "done").executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numUpdatedRows) === 1),
      ),
    // An owner's walk follows pm_projects' unique (workspace_id, id) and reads no membership; a
    // member's follows its memberships (pm_project_members_user_projects, migration 22), each
    // joined to its project. The cursor bounds both sides, so Postgres' merge join starts at it.
    visibleProjects: ({ workspaceId, userId, everyProject, afterId, limit }) =>
      runQuery(db, (ex) => {
        if (everyProject) {
          let query = ex.selectFrom("pm_projects as p").selectAll("p").select(sql.lit(null).as("project_role")).where("p.workspace_id", "=", workspaceId);
          if (afterId !== undefined) query = query.where("p.id", ">", afterId);
          return query.orderBy("p.id").limit(limit).execute();
        }
        let query = ex
          .selectFrom("pm_project_members as pm")
          .innerJoin("pm_projects as p", "p.id", "pm.project_id")
          .selectAll("p")
          .select("pm.role as project_role")
          .where("pm.user_id", "=", userId)
          .where("pm.workspace_id", "=", workspaceId)
          .where("p.workspace_id", "=", workspaceId);
        if (afterId !== undefined) query = query.where("pm.project_id", ">", afterId).where("p.id", ">", afterId);
        return query.orderBy("pm.project_id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => ({ ...projects.fromRow(r), projectRole: readRoles(r).projectRole })))),
    // Memberships have no id column: the page key is (project_id, user_id), the unique key's order.
    projectMembers: (req) =>
      isEmptyScope(req)
        ? Effect.succeed([])
        : runQuery(db, (ex) => {
            let query = ex.selectFrom("pm_project_members").selectAll().where(projectScopeSql("pm_project_members", req));
            const after = req.after;
            if (after !== undefined) {
              query = query.where((eb) =>
                eb.or([eb("project_id", ">", after.projectId), eb.and([eb("project_id", "=", after.projectId), eb("user_id", ">", after.id)])]),
              );
            }
            return query.orderBy("project_id").orderBy("user_id").limit(req.limit).execute();
          }).pipe(Effect.map((rows) => rows.map((r) => ({ ...members.fromRow(r), id: `${r.project_id}/${r.user_id}` })))),
    tasks: page("pm_tasks", rowCodec(Task, f).fromRow, true),
    comments: page("pm_comments", rowCodec(Comment, f).fromRow),
    attachments: page("pm_attachments", rowCodec(Attachment, f).fromRow),
    events: page("pm_task_events", rowCodec(TaskEvent, f).fromRow),
  };
};
