/**
 * The WorkspaceDirectory the reference server binds: file storage shares the project module's
 * workspaces and membership (`pm_workspace_members`). A workspace owner is a files admin; members
 * and guests are members (content access is governed by ACL either way). Read on every check, so
 * a removed member loses access at once. A host embedding files alone binds its own directory.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import type { WorkspaceDirectory } from "../../../ports/files/WorkspaceDirectory.js";
import { compiledOnce, runQuery, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the directory over the project module's membership table in `db`. */
export const makeSqlProjectsWorkspaceDirectory = (db: SqlDatabase): WorkspaceDirectory => {
  // Read by every files request: compiled once.
  const selectRole = compiledOnce<{ workspaceId: string; userId: string }>((ex, p) =>
    ex.selectFrom("pm_workspace_members").select("role").where("workspace_id", "=", p("workspaceId")).where("user_id", "=", p("userId")),
  );
  // The user ids go as one JSON array parameter: one statement and one bind however many.
  const idsOf = (json: string) => (db.dialect === "postgres" ? sql`SELECT jsonb_array_elements_text(${json}::jsonb)` : sql`SELECT value FROM json_each(${json})`);
  return {
    standing: (workspaceId, userId) =>
      runStatement(db, selectRole, { workspaceId, userId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : row.role === "owner" ? "admin" : "member")),
      ),
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
