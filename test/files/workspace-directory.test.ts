/**
 * The reference server's membership for file storage is the project module's: an owner is a
 * files admin, members and guests are members, anyone else (or another workspace) is nobody,
 * and a removal is visible at the next check; the members among a list of users (a drive
 * announcement's readers) are read in one statement.
 */
import "../../adapters/sql/projects/index.js";
import t from "tap";
import { Effect } from "effect";
import { makeSqlProjectsWorkspaceDirectory } from "../../adapters/sql/files/SqlProjectsWorkspaceDirectory.js";
import { sentToPostgres } from "../support/postgresPlans.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachFilesDialect } from "./support.js";
import "./support.js";

/** Writes each member's workspace (created by its first member) and the memberships. */
const seedMembers = async (db: SqlDatabase, members: ReadonlyArray<readonly [string, string, string]>) => {
  const time = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
  const firstOf = new Map(members.map(([ws, user]) => [ws, user] as const).reverse());
  await db.db.insertInto("pm_workspaces").values([...firstOf].map(([id, by]) => ({ id, name: id, created_by: by, created_at: time }))).execute();
  await db.db.insertInto("pm_workspace_members").values(members.map(([workspace_id, user_id, role]) => ({ workspace_id, user_id, role, created_at: time }))).execute();
};

t.test("file storage membership reads the project workspaces: owner is admin, member and guest are members", (t) =>
  forEachFilesDialect(t, "projects directory", async (t, db) => {
    await seedMembers(db, [["ws1", "ann", "owner"], ["ws1", "ben", "member"], ["ws1", "gus", "guest"]]);
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

t.test("the members among a list of users are read in one statement however long the list, in the list's order", (t) =>
  forEachFilesDialect(t, "projects directory members among", async (t, db) => {
    await seedMembers(db, [["ws1", "ann", "owner"], ["ws1", "ben", "member"], ["ws1", "gus", "guest"], ["ws2", "eve", "owner"]]);
    const directory = makeSqlProjectsWorkspaceDirectory(db);
    const among = (ws: string, users: ReadonlyArray<string>) => Effect.runPromise(directory.membersAmong(ws, users));
    t.same(await among("ws1", ["gus", "eve", "ann", "zed", "ann"]), ["gus", "ann"], "members only, once each, in the order asked");
    t.same(await among("ws2", ["ann", "eve"]), ["eve"], "of that workspace only");
    t.same(await among("ws1", []), [], "nobody asked: nobody");
    await db.db.deleteFrom("pm_workspace_members").where("user_id", "=", "ben").execute();
    t.same(await among("ws1", ["ben", "ann"]), ["ann"], "a removal is visible at once");
    // More users than SQLite binds in one statement (32,766).
    const many = [...Array.from({ length: 40_000 }, (_, i) => `u${i}`), "gus"];
    t.same(await among("ws1", many), ["gus"], "a list longer than a statement's bind limit");
    if (db.dialect === "postgres") {
      const sent = await sentToPostgres((text) => text.includes("pm_workspace_members"), () => among("ws1", many));
      t.equal(sent.length, 1, "one statement");
    }
  }),
);
