/** The WorkspacesRepository port over `pm_workspaces` and `pm_workspace_members`. */
import { Effect } from "effect";
import { Workspace } from "../../../core/projects/model/Workspace.js";
import { WorkspaceMember } from "../../../core/projects/model/WorkspaceMember.js";
import type { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { featuresFor } from "../featuresFor.js";
import { lockRow } from "../lockRow.js";
import { compiledInsert, runQuery, runStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { WorkspaceId } from "../../../core/projects/model/Ids.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the workspace repository over `db`. */
export const makeSqlWorkspacesRepository = (db: SqlDatabase): WorkspacesRepository => {
  const f = featuresFor(db);
  const workspaces = rowCodec(Workspace, f);
  const members = rowCodec(WorkspaceMember, f);
  const insertWorkspaceRow = compiledInsert("pm_workspaces", workspaces);
  const findMember: WorkspacesRepository["findMember"] = (workspaceId, userId, options) =>
    runQuery(db, (ex) =>
      lockRow(
        db,
        ex.selectFrom("pm_workspace_members").selectAll().where("workspace_id", "=", workspaceId).where("user_id", "=", userId),
        options?.forUpdate,
      ).executeTakeFirst(),
    ).pipe(Effect.map((r) => (r === undefined ? null : members.fromRow(r))));
  return {
    insertWorkspace: (w) =>
      runStatement(db, insertWorkspaceRow, w).pipe(Effect.asVoid, withSpan("WorkspacesRepository.insertWorkspace")),
    findWorkspace: (id, options) =>
      runQuery(db, (ex) => {
        // NO KEY UPDATE: inserts of rows referencing the workspace (their KEY SHARE) never wait for it.
        return lockRow(db, ex.selectFrom("pm_workspaces").selectAll().where("id", "=", id), options?.lock, "no key update").executeTakeFirst();
      }).pipe(
        Effect.map((r) => (r === undefined ? null : workspaces.fromRow(r))),
      ),
    upsertMember: (m) =>
      Effect.gen(function* () {
        const existing = yield* findMember(m.workspaceId, m.userId);
        yield* runQuery(db, (ex) =>
          ex
            .insertInto("pm_workspace_members")
            .values(members.toRow(m))
            .onConflict((oc) => oc.columns(["workspace_id", "user_id"]).doUpdateSet({ role: m.role }))
            .execute(),
        );
        return existing === null ? ("created" as const) : ("updated" as const);
      }).pipe(withSpan("WorkspacesRepository.upsertMember")),
    findMember,
    removeMember: (workspaceId, userId) =>
      runQuery(db, (ex) =>
        ex.deleteFrom("pm_workspace_members").where("workspace_id", "=", workspaceId).where("user_id", "=", userId).executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numDeletedRows) > 0)),
    countOwners: (workspaceId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_workspace_members")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("workspace_id", "=", workspaceId)
          .where("role", "=", "owner")
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    workspaceIdsWithRole: (userId, role) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_workspace_members").select("workspace_id").where("user_id", "=", userId).where("role", "=", role).execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => WorkspaceId.make(String(r.workspace_id))))),
  };
};
