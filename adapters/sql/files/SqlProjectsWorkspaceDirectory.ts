/**
 * The WorkspaceDirectory the reference server binds: file storage shares the project module's
 * workspaces and membership (`pm_workspace_members`). A workspace owner is a files admin; members
 * and guests are members (content access is governed by ACL either way). Read on every check, so
 * a removed member loses access at once. A host embedding files alone binds its own directory.
 * Under the drive lock a command reads the membership FOR SHARE (`standingHeld`): the project
 * module takes a member's row FOR UPDATE before removing it or changing its role, so that change
 * waits for the command's commit (SQLite runs one writer at a time and needs no row lock).
 */
import { Effect } from "effect";
import { sql } from "kysely";
import type { WorkspaceDirectory, WorkspaceStanding } from "../../../ports/files/WorkspaceDirectory.js";
import { lockRow } from "../lockRow.js";
import { compiledOnce, runQuery, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the directory over the project module's membership table in `db`. */
export const makeSqlProjectsWorkspaceDirectory = (db: SqlDatabase): WorkspaceDirectory => {
  // Read by every files request: compiled once.
  const selectRoleOf = (held: boolean) =>
    compiledOnce<{ workspaceId: string; userId: string }>((ex, p) =>
      lockRow(db, ex.selectFrom("pm_workspace_members").select("role").where("workspace_id", "=", p("workspaceId")).where("user_id", "=", p("userId")), held, "share"),
    );
  const selectRole = selectRoleOf(false);
  const selectRoleHeld = selectRoleOf(true);
  const standingOf = (role: unknown): WorkspaceStanding | null => (role === undefined ? null : role === "owner" ? "admin" : "member");
  // The user ids go as one JSON array parameter: one statement and one bind however many.
  const idsOf = (json: string) => (db.dialect === "postgres" ? sql`SELECT jsonb_array_elements_text(${json}::jsonb)` : sql`SELECT value FROM json_each(${json})`);
  return {
    standing: (workspaceId, userId) => runStatement(db, selectRole, { workspaceId, userId }).pipe(Effect.map(({ rows: [row] }) => standingOf(row?.role))),
    standingHeld: (workspaceId, userId) => runStatement(db, selectRoleHeld, { workspaceId, userId }).pipe(Effect.map(({ rows: [row] }) => standingOf(row?.role))),
    membersAmong: (workspaceId, userIds) =>
      userIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) =>
            sql<{ user_id: string }>`SELECT user_id FROM pm_workspace_members WHERE workspace_id = ${workspaceId} AND user_id IN (${idsOf(JSON.stringify(userIds))})`.execute(ex),
          ).pipe(
            Effect.map(({ rows }) => {
              const members = new Set(rows.map((row) => String(row.user_id)));
              return [...new Set(userIds)].filter((userId) => members.has(userId));
            }),
          ),
  };
};
