/**
 * The WorkspaceInvitationsRepository port over `pm_workspace_invitations` (projects migration 23).
 * A second pending invitation of a user to a workspace meets the partial unique index and is not
 * inserted (ON CONFLICT DO NOTHING on that index); a decision is one conditional UPDATE of a
 * pending row, so of two racing decisions the second finds it decided and moves nothing.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import { WorkspaceInvitation } from "../../../core/projects/model/WorkspaceInvitation.js";
import type { WorkspaceInvitationsRepository } from "../../../ports/projects/WorkspaceInvitationsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the workspace invitation repository over `db`. */
export const makeSqlWorkspaceInvitationsRepository = (db: SqlDatabase): WorkspaceInvitationsRepository => {
  const f = featuresFor(db);
  const invitations = rowCodec(WorkspaceInvitation, f);
  const fromRows = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map((r) => invitations.fromRow(r));
  return {
    insert: (invitation) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_workspace_invitations")
          .values(invitations.toRow(invitation))
          // The partial index's predicate as a literal, so both dialects match the index.
          .onConflict((oc) => oc.columns(["workspace_id", "user_id"]).where("status", "=", sql.lit("pending")).doNothing())
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => (toNumber(r.numInsertedOrUpdatedRows ?? 0) > 0 ? ("inserted" as const) : ("pending_exists" as const))),
        withSpan("WorkspaceInvitationsRepository.insert"),
      ),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_workspace_invitations").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : invitations.fromRow(r))),
      ),
    findPending: (workspaceId, userId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_workspace_invitations")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("user_id", "=", userId)
          .where("status", "=", sql.lit("pending"))
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : invitations.fromRow(r)))),
    decide: ({ id, status, at, by, reason, unexpired }) =>
      runQuery(db, (ex) => {
        let query = ex
          .updateTable("pm_workspace_invitations")
          .set({ status, decided_at: f.timeToDb(at), decided_by: by, decided_reason: reason })
          .where("id", "=", id)
          .where("status", "=", "pending");
        if (unexpired === true) query = query.where("expires_at", ">", f.timeToDb(at));
        return query.executeTakeFirst();
      }).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) > 0),
        withSpan("WorkspaceInvitationsRepository.decide"),
      ),
    cancelPendingFrom: ({ workspaceId, invitedBy, at, by, reason }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_workspace_invitations")
          .set({ status: "cancelled", decided_at: f.timeToDb(at), decided_by: by, decided_reason: reason })
          .where("workspace_id", "=", workspaceId)
          .where("invited_by", "=", invitedBy)
          .where("status", "=", sql.lit("pending"))
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows)),
        withSpan("WorkspaceInvitationsRepository.cancelPendingFrom"),
      ),
    listPendingForUser: (userId, at, limit, beforeId) =>
      runQuery(db, (ex) => {
        // The workspace's name with each (one read by its primary key per row of the page).
        let query = ex
          .selectFrom("pm_workspace_invitations as i")
          .innerJoin("pm_workspaces as w", "w.id", "i.workspace_id")
          .selectAll("i")
          .select("w.name as workspace_name")
          .where("i.user_id", "=", userId)
          .where("i.status", "=", sql.lit("pending"))
          .where("i.expires_at", ">", f.timeToDb(at));
        if (beforeId !== undefined) query = query.where("i.id", "<", beforeId);
        return query.orderBy("i.id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) =>
          rows.map(({ workspace_name, ...row }: Record<string, unknown>) => ({ ...invitations.fromRow(row), workspaceName: String(workspace_name) })),
        ),
      ),
    listForWorkspace: (workspaceId, limit, beforeId) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_workspace_invitations").selectAll().where("workspace_id", "=", workspaceId);
        if (beforeId !== undefined) query = query.where("id", "<", beforeId);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map(fromRows)),
  };
};
