/** The ProjectsRepository port over `pm_projects`, `pm_project_members` and `pm_membership_audit`. */
import { Effect } from "effect";
import type { ProjectsRepository } from "../../../ports/projects/ProjectsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { projectFromRow, projectMemberFromRow } from "./projectRows.js";

/** Builds the project repository over `db`. */
export const makeSqlProjectsRepository = (db: SqlDatabase): ProjectsRepository => {
  const f = featuresFor(db);
  const findMember: ProjectsRepository["findMember"] = (projectId, userId) =>
    runQuery(db, (ex) =>
      ex.selectFrom("pm_project_members").selectAll().where("project_id", "=", projectId).where("user_id", "=", userId).executeTakeFirst(),
    ).pipe(Effect.map((r) => (r === undefined ? null : projectMemberFromRow(f, r))));
  return {
    insertProject: (p) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_projects")
          .values({ id: p.id, workspace_id: p.workspaceId, name: p.name, created_by: p.createdBy, created_at: f.timeToDb(p.createdAt) })
          .execute(),
      ).pipe(Effect.asVoid, Effect.withSpan("ProjectsRepository.insertProject")),
    findProject: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_projects").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : projectFromRow(f, r))),
      ),
    upsertMember: (m) =>
      Effect.gen(function* () {
        const existing = yield* findMember(m.projectId, m.userId);
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("pm_project_members")
            .values({
              workspace_id: m.workspaceId,
              project_id: m.projectId,
              user_id: m.userId,
              role: m.role,
              added_by: m.addedBy,
              created_at: f.timeToDb(m.createdAt),
            })
            .onConflict((oc) => oc.columns(["project_id", "user_id"]).doUpdateSet({ role: m.role }))
            .execute(),
        );
        return existing === null ? ("created" as const) : ("updated" as const);
      }).pipe(Effect.withSpan("ProjectsRepository.upsertMember")),
    findMember,
    removeMember: (projectId, userId) =>
      runQuery(db, (ex) =>
        ex.deleteFrom("pm_project_members").where("project_id", "=", projectId).where("user_id", "=", userId).executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numDeletedRows) > 0)),
    removeMembershipsInWorkspace: (workspaceId, userId) =>
      runQuery(db, (ex) =>
        ex
          .deleteFrom("pm_project_members")
          .where("workspace_id", "=", workspaceId)
          .where("user_id", "=", userId)
          .returning("project_id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => String(r.project_id)))),
    projectIdsOfMember: (userId, workspaceId) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_project_members").select("project_id").where("user_id", "=", userId);
        if (workspaceId !== undefined) query = query.where("workspace_id", "=", workspaceId);
        return query.execute();
      }).pipe(Effect.map((rows) => rows.map((r) => String(r.project_id)))),
    projectIdsOfWorkspaces: (workspaceIds) =>
      workspaceIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("pm_projects").select("id").where("workspace_id", "in", [...workspaceIds]).execute()).pipe(
            Effect.map((rows) => rows.map((r) => String(r.id))),
          ),
    appendAudit: (a) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_membership_audit")
          .values({
            id: a.id,
            workspace_id: a.workspaceId,
            project_id: a.projectId,
            user_id: a.userId,
            actor_id: a.actorId,
            action: a.action,
            role: a.role,
            reason: a.reason,
            created_at: f.timeToDb(a.createdAt),
          })
          .execute(),
      ).pipe(Effect.asVoid, Effect.withSpan("ProjectsRepository.appendAudit")),
  };
};
