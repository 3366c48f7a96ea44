/**
 * The WorkspaceDirectory the reference server binds: file storage shares the project module's
 * workspaces and membership (`pm_workspace_members`). A workspace owner is a files admin; members
 * and guests are members (content access is governed by ACL either way). Read on every check, so
 * a removed member loses access at once. A host embedding files alone binds its own directory.
 */
import { Effect } from "effect";
import type { WorkspaceDirectory } from "../../../ports/files/WorkspaceDirectory.js";
import { compiledOnce, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the directory over the project module's membership table in `db`. */
export const makeSqlProjectsWorkspaceDirectory = (db: SqlDatabase): WorkspaceDirectory => {
  // Read by every files request: compiled once.
  const selectRole = compiledOnce<{ workspaceId: string; userId: string }>((ex, p) =>
    ex.selectFrom("pm_workspace_members").select("role").where("workspace_id", "=", p("workspaceId")).where("user_id", "=", p("userId")),
  );
  return {
    standing: (workspaceId, userId) =>
      runStatement(db, selectRole, { workspaceId, userId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : row.role === "owner" ? "admin" : "member")),
      ),
  };
};
