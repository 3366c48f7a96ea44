/**
 * The reference server wires the member removal of the project workspaces to the file storage
 * feed (SQLite and Postgres): after an owner removes a member (DELETE
 * /v1/workspaces/:id/members/:userId) and the outbox relay ran, the removed member's
 * GET /v1/changes answers 200 with one `node.left_view` change of the drive's root. Re-invited
 * (POST /v1/workspaces/:id/members), their feed then shows one `node.entered_view` change of the
 * root (list the drive again) and the later changes as before; nobody else's feed shows it.
 * While removed, their drive channel is told of no change (announcements go to current members).
 */
import t from "tap";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("a member removed from a project workspace reads the drive's root leaving their view, and their drive channel is told of no later change", (t) =>
  eachDialect(t, "member removal over HTTP", async (t, dialect) => {
    // The worker is off: the host's consumers run when the test drains.
    const { server, call, user, workspace, drain } = await startFilesServer(t, dialect, { WORKER_IN_PROCESS: "false" });
    const ann = await user();
    const ben = await user();
    const ws = await workspace(ann, [ben]);
    const shared = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    t.equal(shared.status, 201);
    t.equal((await call(`/v1/nodes/${String(shared.body.id)}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } })).status, 200);
    const start = await call(`/v1/changes?workspace_id=${ws.id}`, { user: ben });
    t.equal(start.status, 200);
    t.ok((start.body.data as Json[]).some((c) => c.node_id === shared.body.id), "ben syncs Shared");

    t.equal((await call(`/v1/workspaces/${ws.id}/members/${ben.id}`, { user: ann, method: "DELETE" })).status, 204);
    await drain();
    const after = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(start.body.next_cursor)}`, { user: ben });
    t.match(after, { status: 200, body: { data: [{ node_id: ws.root, type: "node.left_view", node: null, tombstone: { id: ws.root, parent_id: null } }], has_more: false } });
    t.equal((after.body.data as Json[]).length, 1, "one change: the root stands for the whole drive");
    t.equal((await call(`/v1/nodes/${String(shared.body.id)}/children`, { user: ben })).status, 404, "and the tree itself is gone for him");

    // He keeps his grant rows, but announcements go to current members only.
    const appends = async (userId: string) =>
      Number((await server.core.database.db.selectFrom("channel_messages").select((eb) => eb.fn.countAll().as("n")).where("channel", "=", `drive:${ws.id}:${userId}`).executeTakeFirstOrThrow()).n);
    const [annBefore, benBefore] = [await appends(ann.id), await appends(ben.id)];
    t.equal((await call("/v1/nodes", { user: ann, body: { parent_id: String(shared.body.id), name: "After", kind: "folder" } })).status, 201);
    await drain();
    t.equal(await appends(ann.id), annBefore + 1, "the owner's drive channel is told of the new folder");
    t.equal(await appends(ben.id), benBefore, "the removed member's drive channel gets no append");
  }),
);

t.test("a member re-invited to a project workspace reads the drive's root entering their view, then the later changes", (t) =>
  eachDialect(t, "member re-invitation over HTTP", async (t, dialect) => {
    const { call, user, join, workspace, drain } = await startFilesServer(t, dialect, { WORKER_IN_PROCESS: "false" });
    const ann = await user();
    const ben = await user();
    const cid = await user();
    const ws = await workspace(ann, [ben, cid]);
    const shared = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } });
    t.equal((await call(`/v1/nodes/${String(shared.body.id)}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } })).status, 200);
    await drain();
    const cidStart = await call(`/v1/changes?workspace_id=${ws.id}`, { user: cid });
    const start = await call(`/v1/changes?workspace_id=${ws.id}`, { user: ben });
    t.equal((await call(`/v1/workspaces/${ws.id}/members/${ben.id}`, { user: ann, method: "DELETE" })).status, 204);
    await drain();
    const removed = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(start.body.next_cursor)}`, { user: ben });
    t.match(removed, { status: 200, body: { data: [{ node_id: ws.root, type: "node.left_view" }] } }, "removed: the root left his view");

    await join(ann, ws.id, ben); // re-invited, and accepted
    await drain();
    const back = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(removed.body.next_cursor)}`, { user: ben });
    t.match(back, { status: 200, body: { data: [{ node_id: ws.root, type: "node.entered_view", node: { id: ws.root, parent_id: null }, tombstone: null }], has_more: false } });
    t.equal((back.body.data as Json[]).length, 1, "one change: the root stands for the whole drive");

    const later = await call("/v1/nodes", { user: ann, body: { parent_id: String(shared.body.id), name: "Later", kind: "folder" } });
    t.equal(later.status, 201);
    const after = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(back.body.next_cursor)}`, { user: ben });
    t.match(after, { status: 200, body: { data: [{ node_id: later.body.id, type: "node.created" }] } }, "then the normal feed");
    const cidAfter = await call(`/v1/changes?workspace_id=${ws.id}&cursor=${String(cidStart.body.next_cursor)}`, { user: cid });
    t.notOk((cidAfter.body.data as Json[]).some((c) => c.type === "node.entered_view"), "cid's feed does not show ben's entered view");
  }),
);
