/** The ProjectsRepository port over `pm_projects`, `pm_project_members` and `pm_membership_audit`. */
import { Effect } from "effect";
import { MembershipAudit } from "../../../core/projects/model/MembershipAudit.js";
import { Project } from "../../../core/projects/model/Project.js";
import { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import type { ProjectsRepository } from "../../../ports/projects/ProjectsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { ProjectId } from "../../../core/projects/model/Ids.js";
import { joinRoles, readRoles, roleColumns } from "./ProjectRoles.js";
import { withSpan } from "../../../core/kernel/Span.js";

/**
 * Audit records per multi-row insert: 9 parameters each, 9,000 per statement, within SQLite's
 * 32,766 and Postgres's 65,535.
 */
const auditsPerStatement = 1_000;

/** Builds the project repository over `db`. */
export const makeSqlProjectsRepository = (db: SqlDatabase): ProjectsRepository => {
  const f = featuresFor(db);
  const projects = rowCodec(Project, f);
  const members = rowCodec(ProjectMember, f);
  const audits = rowCodec(MembershipAudit, f);
  const insertProjectRow = compiledInsert("pm_projects", projects);
  const insertAuditRow = compiledInsert("pm_membership_audit", audits);
  // The projects a user sees (owned workspaces' projects and shared ones), read by every feed and
  // search: compiled once, with and without the workspace filter.
  const visibleProjects = (inWorkspace: boolean, limited: boolean) =>
    compiledOnce<{ userId: string; workspaceId: string | undefined; atMost: number | undefined }>((ex, p) => {
      let owned = ex
        .selectFrom("pm_projects as p")
        .innerJoin("pm_workspace_members as wm", (join) =>
          join.onRef("wm.workspace_id", "=", "p.workspace_id").on("wm.user_id", "=", p("userId")).on("wm.role", "=", "owner"),
        )
        .select("p.id as id");
      let shared = ex.selectFrom("pm_project_members").select("project_id as id").where("user_id", "=", p("userId"));
      if (inWorkspace) {
        owned = owned.where("p.workspace_id", "=", p("workspaceId"));
        shared = shared.where("workspace_id", "=", p("workspaceId"));
      }
      if (!limited) return owned.union(shared).orderBy("id");
      // Each side stops at `atMost` rows before the union, so the read is bounded whatever the
      // membership count; a side reaching `atMost` alone makes the answer `atMost` long, as the
      // whole list would be.
      const first = ex.selectFrom(owned.limit(p("atMost")).as("o")).select("o.id");
      const second = ex.selectFrom(shared.limit(p("atMost")).as("s")).select("s.id");
      return first.union(second).orderBy("id").limit(p("atMost"));
    });
  const selectVisibleProjects = [visibleProjects(false, false), visibleProjects(false, true)] as const;
  const selectVisibleProjectsOfWorkspace = [visibleProjects(true, false), visibleProjects(true, true)] as const;
  // Every project command's access read: compiled once.
  const selectProjectWithRoles = compiledOnce<{ projectId: string; userId: string }>((ex, p) =>
    joinRoles(ex.selectFrom("pm_projects as p"), p("userId")).selectAll("p").select(roleColumns).where("p.id", "=", p("projectId")),
  );
  const findMember: ProjectsRepository["findMember"] = (projectId, userId) =>
    runQuery(db, (ex) =>
      ex.selectFrom("pm_project_members").selectAll().where("project_id", "=", projectId).where("user_id", "=", userId).executeTakeFirst(),
    ).pipe(Effect.map((r) => (r === undefined ? null : members.fromRow(r))));
  return {
    insertProject: (p) =>
      runStatement(db, insertProjectRow, p).pipe(Effect.asVoid, withSpan("ProjectsRepository.insertProject")),
    findProject: (id, options) =>
      runQuery(db, (ex) => {
        // NO KEY UPDATE: inserts of rows referencing the project (tasks, members) never wait for it.
        return lockRow(db, ex.selectFrom("pm_projects").selectAll().where("id", "=", id), options?.lock, "no key update").executeTakeFirst();
      }).pipe(
        Effect.map((r) => (r === undefined ? null : projects.fromRow(r))),
      ),
    findProjectWithRoles: (projectId, userId) =>
      runStatement(db, selectProjectWithRoles, { projectId, userId }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : { project: projects.fromRow(r), ...readRoles(r) })),
      ),
    upsertMember: (m) =>
      Effect.gen(function* () {
        const existing = yield* findMember(m.projectId, m.userId);
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("pm_project_members")
            .values(members.toRow(m))
            .onConflict((oc) => oc.columns(["project_id", "user_id"]).doUpdateSet({ role: m.role }))
            .execute(),
        );
        return existing === null ? ("created" as const) : ("updated" as const);
      }).pipe(withSpan("ProjectsRepository.upsertMember")),
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
      ).pipe(Effect.map((rows) => rows.map((r) => ProjectId.make(String(r.project_id))))),
    // One UPDATE through pm_project_members_user_projects (user_id, workspace_id, project_id).
    lowerRolesInWorkspace: (userId, workspaceId, from, to) =>
      from.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) =>
            ex
              .updateTable("pm_project_members")
              .set({ role: to })
              .where("user_id", "=", userId)
              .where("workspace_id", "=", workspaceId)
              .where("role", "in", [...from])
              .returning("project_id")
              .execute(),
          ).pipe(
            Effect.map((rows) => rows.map((r) => ProjectId.make(String(r.project_id)))),
            withSpan("ProjectsRepository.lowerRolesInWorkspace"),
          ),
    visibleProjectIds: (userId, workspaceId, atMost) =>
      runStatement(db, (workspaceId === undefined ? selectVisibleProjects : selectVisibleProjectsOfWorkspace)[atMost === undefined ? 0 : 1], {
        userId,
        workspaceId,
        atMost,
      }).pipe(
        Effect.map(({ rows }) => rows.map((r) => ProjectId.make(String(r.id)))),
      ),
    projectIdsOfWorkspaces: (workspaceIds) =>
      workspaceIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => ex.selectFrom("pm_projects").select("id").where("workspace_id", "in", [...workspaceIds]).execute()).pipe(
            Effect.map((rows) => rows.map((r) => ProjectId.make(String(r.id)))),
          ),
    appendAudit: (a) =>
      sendStatement(db, insertAuditRow, a).pipe(withSpan("ProjectsRepository.appendAudit")),
    appendAudits: (records) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(records.length / auditsPerStatement) }, (_, i) => records.slice(i * auditsPerStatement, (i + 1) * auditsPerStatement)),
        (chunk) => runQuery(db, (ex) => ex.insertInto("pm_membership_audit").values(chunk.map((a) => audits.toRow(a))).execute()),
        { discard: true },
      ).pipe(withSpan("ProjectsRepository.appendAudits")),
    // An index-only walk of pm_membership_audit_membership (workspace_id, user_id, project_id).
    countProjectMembershipChangesInWorkspace: (workspaceId, userId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_membership_audit")
          .select((eb) => ["project_id", eb.fn.countAll().as("n")])
          .where("workspace_id", "=", workspaceId)
          .where("user_id", "=", userId)
          .where("project_id", "is not", null)
          .groupBy("project_id")
          .execute(),
      ).pipe(
        Effect.map((rows) => new Map(rows.map((r) => [String(r.project_id), toNumber(r.n)]))),
        withSpan("ProjectsRepository.countProjectMembershipChangesInWorkspace"),
      ),
    countMembershipChanges: ({ workspaceId, projectId, userId }) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_membership_audit")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("workspace_id", "=", workspaceId)
          .where("user_id", "=", userId)
          .where((eb) => (projectId === null ? eb("project_id", "is", null) : eb("project_id", "=", projectId)))
          .executeTakeFirstOrThrow(),
      ).pipe(
        Effect.map((r) => toNumber(r.n)),
        withSpan("ProjectsRepository.countMembershipChanges"),
      ),
  };
};
