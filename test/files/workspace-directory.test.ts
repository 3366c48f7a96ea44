/**
 * The reference server's membership for file storage is the project module's: an owner is a
 * files admin, members and guests are members, anyone else (or another workspace) is nobody,
 * and a removal is visible at the next check.
 */
import "../../adapters/sql/projects/index.js";
import t from "tap";
import { Effect } from "effect";
import { makeSqlProjectsWorkspaceDirectory } from "../../adapters/sql/files/SqlProjectsWorkspaceDirectory.js";
import { forEachFilesDialect } from "./support.js";
import "./support.js";

t.test("file storage membership reads the project workspaces: owner is admin, member and guest are members", (t) =>
  forEachFilesDialect(t, "projects directory", async (t, db) => {
    const time = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
    await db.db.insertInto("pm_workspaces").values({ id: "ws1", name: "One", created_by: "ann", created_at: time }).execute();
    await db.db
      .insertInto("pm_workspace_members")
      .values([
        { workspace_id: "ws1", user_id: "ann", role: "owner", created_at: time },
        { workspace_id: "ws1", user_id: "ben", role: "member", created_at: time },
        { workspace_id: "ws1", user_id: "gus", role: "guest", created_at: time },
      ])
      .execute();
    const directory = makeSqlProjectsWorkspaceDirectory(db);
    const standing = (ws: string, user: string) => Effect.runPromise(directory.standing(ws, user));
    t.equal(await standing("ws1", "ann"), "admin");
    t.equal(await standing("ws1", "ben"), "member");
    t.equal(await standing("ws1", "gus"), "member");
    t.equal(await standing("ws1", "eve"), null, "not a member");
    t.equal(await standing("ws2", "ann"), null, "another workspace");
    await db.db.deleteFrom("pm_workspace_members").where("user_id", "=", "ben").execute();
    t.equal(await standing("ws1", "ben"), null, "a removal is visible at once");
  }),
);
