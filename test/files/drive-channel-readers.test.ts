/**
 * Who is told of a drive change (files known gap "every member is told of every change"): the
 * channels of a DriveChanged are those of the users the change feed shows the change to - the
 * grantees of its node and its ancestors, and for a change addressed to one user that user alone
 * while its view rule holds - read in one statement however many members the workspace has.
 * SQLite and Postgres (the statement count on Postgres, where statements are seen as sent).
 */
import t from "tap";
import { driveChannelsFor } from "../../core/files/ChannelAccess.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { DriveChanged } from "../../core/files/Events.js";
import { listChanges } from "../../core/files/ListChanges.js";
import type { ChangePage } from "../../core/files/model/Change.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { sentToPostgres } from "../support/postgresPlans.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

/** The seqs of `userId`'s whole feed. */
const feedSeqs = async (env: FilesEnv, userId: string): Promise<ReadonlyArray<number>> => {
  const seqs: number[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: ChangePage = await env.run(listChanges({ userId, workspaceId: "ws1", cursor, limit: 500 }));
    seqs.push(...page.data.map((c) => c.seq));
    if (!page.hasMore) return seqs;
    cursor = page.nextCursor;
  }
};

/** The users a DriveChanged of `seq` is announced to. */
const readersOf = async (env: FilesEnv, seq: number): Promise<ReadonlyArray<string>> => {
  const event = await env.run(DriveChanged.make({ tenant_id: "ws1", aggregate_id: "ws1", aggregate_version: seq, actor_id: "ann", data: { seq } }));
  const channels = await env.run(driveChannelsFor(event));
  const prefix = "drive:ws1:";
  if (!channels.every((c) => c.startsWith(prefix))) throw new Error(`not the workspace's drive channels: ${channels.join(", ")}`);
  return channels.map((c) => c.slice(prefix.length));
};

t.test("a drive change is announced to exactly the users its feed shows it to, in one statement however many members", (t) =>
  forEachFilesDialect(t, "drive change readers", async (t, db) => {
    const env = filesRuntime(t, db);
    const members = Array.from({ length: 120 }, (_, i) => `m${String(i).padStart(3, "0")}`);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", ...members]);
    await workspaceWithDrive(env, "ws2", "eve", ["m001"]);
    // Every member owns a folder of their own: the workspace holds many grants, few on any one chain.
    for (const m of members) await env.run(createFolder({ userId: m, workspaceId: "ws1", parentId: root, name: `${m}'s` }));
    const team = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Team" }));
    for (const m of ["m001", "m002", "m003"]) await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: team.id, granteeId: m, role: "viewer" }));
    const deep = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: team.id, name: "Deep" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: deep.id, granteeId: "m004", role: "viewer" }));
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: deep.id, name: "Leaf" }));
    const leafSeq = Math.max(...(await feedSeqs(env, "ann")));

    const readers = await readersOf(env, leafSeq);
    t.same(readers, ["ann", "m001", "m002", "m003", "m004"], "the grantees of the node's chain: its owner, the folder's and the subfolder's grantees");
    for (const user of ["ann", "m000", "m001", "m004", "m005", "m119", "adm"]) {
      t.equal((await feedSeqs(env, user)).includes(leafSeq), readers.includes(user), `${user}: announced exactly when the feed shows the change`);
    }
    if (db.dialect === "postgres") {
      const sent = await sentToPostgres((text) => text.includes("fs_"), () => readersOf(env, leafSeq));
      t.equal(sent.length, 1, "one statement for 122 members");
    }

    // Addressed changes: to their recipient alone, while the feed shows it to them.
    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: deep.id, granteeId: "m004" }));
    const leftSeq = Math.max(...(await feedSeqs(env, "m004")));
    t.same(await readersOf(env, leftSeq), ["m004"], "a left-view change: its recipient alone");
    t.same(await readersOf(env, leafSeq), ["ann", "m001", "m002", "m003"], "the revoked grantee is no longer a reader of the subtree");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: deep.id, granteeId: "m004", role: "viewer" }));
    const enteredSeq = Math.max(...(await feedSeqs(env, "m004")));
    t.ok(enteredSeq > leftSeq, "the new grant is an entered-view change in m004's feed");
    t.same(await readersOf(env, enteredSeq), ["m004"], "an entered-view change: its recipient alone");
    t.same(await readersOf(env, leftSeq), [], "the left-view change once the node is back in view: no one (as the feed)");
    t.notOk((await feedSeqs(env, "m004")).includes(leftSeq), "(the feed no longer shows it)");
    t.same(await readersOf(env, 1_000_000), [], "an unknown seq: no one");
  }),
);
