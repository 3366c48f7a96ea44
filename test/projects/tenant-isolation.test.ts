/**
 * Spec rule 1: every route checks workspace and project membership. An object of another
 * workspace, or one the caller may not see, answers 404 on every route; a guest never reaches
 * a project that was not shared with it, nor its tasks, comments or activity — SQLite and Postgres.
 */
import t from "tap";
import type { TapTest } from "../support/databases.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer, type Client } from "./support.js";

const everyRoute = (ids: { workspaceId: string; projectId: string; taskId: string; userId: string; invitationId: string }) => [
  ["GET", `/v1/workspaces/${ids.workspaceId}`],
  ["POST", `/v1/workspaces/${ids.workspaceId}/members`, { user_id: ids.userId, role: "member" }],
  ["POST", `/v1/workspaces/${ids.workspaceId}/invitations`, { user_id: ids.userId, role: "member" }],
  ["GET", `/v1/workspaces/${ids.workspaceId}/invitations`],
  ["DELETE", `/v1/workspaces/${ids.workspaceId}/invitations/${ids.invitationId}`],
  ["POST", `/v1/invitations/${ids.invitationId}/accept`],
  ["POST", `/v1/invitations/${ids.invitationId}/decline`],
  ["DELETE", `/v1/workspaces/${ids.workspaceId}/members/${ids.userId}`],
  ["POST", `/v1/workspaces/${ids.workspaceId}/projects`, { name: "Sneaky" }],
  ["GET", `/v1/projects/${ids.projectId}`],
  ["POST", `/v1/projects/${ids.projectId}/members`, { user_id: ids.userId, role: "viewer" }],
  ["DELETE", `/v1/projects/${ids.projectId}/members/${ids.userId}`],
  ["GET", `/v1/projects/${ids.projectId}/tasks`],
  ["POST", `/v1/projects/${ids.projectId}/tasks`, { title: "Sneaky" }],
  ["GET", `/v1/tasks/${ids.taskId}`],
  ["PATCH", `/v1/tasks/${ids.taskId}`, { title: "Sneaky" }, { "If-Match": '"1"' }],
  ["DELETE", `/v1/tasks/${ids.taskId}`],
  ["POST", `/v1/tasks/${ids.taskId}/restore`],
  ["POST", `/v1/tasks/${ids.taskId}/comments`, { body: "hi", client_mutation_id: "c1" }],
  ["GET", `/v1/tasks/${ids.taskId}/comments`],
  ["GET", `/v1/activity?workspace_id=${ids.workspaceId}`],
] as const;

const expectNotFoundEverywhere = async (t: TapTest, caller: Client, ids: Parameters<typeof everyRoute>[0], who: string) => {
  for (const [method, path, body, headers] of everyRoute(ids)) {
    const answer = await caller.call(method, path, body, headers as Record<string, string> | undefined);
    t.equal(answer.status, 404, `${who}: ${method} ${path.replace(/[0-9a-f-]{36}/g, ":id")} answers 404`);
    t.equal(answer.body?.code, "not_found");
  }
};

t.test("another workspace's objects answer 404 on every route, exactly like unknown ids", (t) =>
  forEachDialectConfig(t, "cross-tenant", async (t, config) => {
    const { client } = await startProjectsServer(t, config);
    const theirs = await projectFixture(client);
    const task = await theirs.owner.call("POST", `/v1/projects/${theirs.projectId}/tasks`, { title: "Secret" });
    t.equal(task.status, 201);
    await theirs.owner.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: "secret", client_mutation_id: "m1" });
    // The intruder owns a workspace of its own: ownership there grants nothing here.
    const intruder = await projectFixture(client);
    const invitation = await theirs.owner.call("POST", `/v1/workspaces/${theirs.workspaceId}/invitations`, { user_id: crypto.randomUUID(), role: "member" });
    t.equal(invitation.status, 201);
    const ids = { workspaceId: theirs.workspaceId, projectId: theirs.projectId, taskId: task.body.id, userId: intruder.owner.userId, invitationId: invitation.body.id };
    await expectNotFoundEverywhere(t, intruder.owner, ids, "owner of another workspace");
    const unknown = {
      workspaceId: crypto.randomUUID(),
      projectId: crypto.randomUUID(),
      taskId: crypto.randomUUID(),
      userId: intruder.owner.userId,
      invitationId: crypto.randomUUID(),
    };
    await expectNotFoundEverywhere(t, theirs.owner, unknown, "unknown ids");
    const feed = await intruder.owner.call("GET", "/v1/activity");
    t.equal(feed.status, 200);
    t.ok(feed.body.data.every((e: { workspace_id: string }) => e.workspace_id === intruder.workspaceId), "no foreign activity");
    const after = await theirs.owner.call("GET", `/v1/tasks/${task.body.id}`);
    t.match(after.body, { title: "Secret", version: 1, deleted_at: null }, "nothing changed");
  }),
);

t.test("a guest reaches only projects shared with it; other projects and their tasks answer 404", (t) =>
  forEachDialectConfig(t, "guest boundary", async (t, config) => {
    const { client } = await startProjectsServer(t, config);
    const fx = await projectFixture(client, { guest: { workspace: "guest", project: "commenter" }, member: { workspace: "member" } });
    const { owner, workspaceId, projectId } = fx;
    const guest = fx.clients.guest!;
    const member = fx.clients.member!;
    const hidden = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Board only" });
    const hiddenTask = await owner.call("POST", `/v1/projects/${hidden.body.id}/tasks`, { title: "Salaries" });
    const sharedTask = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Public roadmap" });

    t.equal((await guest.call("GET", `/v1/workspaces/${workspaceId}`)).body.role, "guest");
    t.equal((await guest.call("GET", `/v1/projects/${projectId}`)).status, 200, "the shared project is visible");
    t.equal((await guest.call("GET", `/v1/tasks/${sharedTask.body.id}`)).status, 200);
    t.equal((await guest.call("POST", `/v1/tasks/${sharedTask.body.id}/comments`, { body: "ok", client_mutation_id: "g1" })).status, 201);
    t.equal((await guest.call("POST", `/v1/projects/${projectId}/tasks`, { title: "x" })).status, 403, "a commenter sees but may not create");
    t.equal((await guest.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "x" })).status, 403, "guests create no projects");
    const ids = { workspaceId, projectId: hidden.body.id, taskId: hiddenTask.body.id, userId: guest.userId, invitationId: crypto.randomUUID() };
    // The project routes (the workspace's own come first).
    for (const [method, path, body, headers] of everyRoute(ids).filter(([, path]) => !path.startsWith("/v1/workspaces/") && !path.startsWith("/v1/invitations/"))) {
      if (path.startsWith("/v1/activity")) continue;
      const answer = await guest.call(method, path, body, headers as Record<string, string> | undefined);
      t.equal(answer.status, 404, `guest: ${method} ${path.replace(/[0-9a-f-]{36}/g, ":id")} of an unshared project answers 404`);
    }
    const feed = await guest.call("GET", `/v1/activity?workspace_id=${workspaceId}`);
    t.ok(feed.body.data.length > 0);
    t.ok(feed.body.data.every((e: { project_id: string }) => e.project_id === projectId), "the guest's feed holds only the shared project");
    t.equal((await member.call("GET", `/v1/projects/${projectId}`)).status, 404, "a workspace member without a project membership sees nothing either");
    t.equal(
      (await owner.call("POST", `/v1/projects/${projectId}/members`, { user_id: guest.userId, role: "admin" })).status,
      422,
      "a guest can never be made project admin",
    );
  }),
);
