/**
 * Workspace export as a job (issue 3: "request, poll status, download the result (JSON lines of
 * everything the caller may see)"): 202 with a pending export, 409 export_not_ready until the job
 * ran, then a download grant; a guest's export holds only its shared projects; nobody else sees
 * another member's export — SQLite and Postgres.
 */
import t from "tap";
import { startFilesServer, uploadAttachment } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

const linesOf = (bytes: Buffer) => bytes.toString("utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);

forEachDialectConfig(t, `an export runs as a job and holds exactly what its requester may see`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, { guest: { workspace: "guest", project: "commenter" } });
  const guest = clients.guest!;
  const hidden = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Board only" });
  const shared = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Shared task" });
  const secret = await owner.call("POST", `/v1/projects/${hidden.body.id}/tasks`, { title: "Secret task" });
  await guest.call("POST", `/v1/tasks/${shared.body.id}/comments`, { body: "guest comment", client_mutation_id: "g1" });
  await owner.call("POST", `/v1/tasks/${secret.body.id}/comments`, { body: "board comment", client_mutation_id: "o1" });
  await uploadAttachment(host, owner, secret.body.id, new TextEncoder().encode("board minutes"), "minutes.txt");

  const requested = await guest.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  t.match(requested.body, { status: "pending", workspace_id: workspaceId, requested_by: guest.userId, size: null });
  t.equal(requested.headers.get("location"), `/v1/exports/${requested.body.id}`);
  const early = await guest.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(early.status, 409);
  t.equal(early.body.code, "export_not_ready");
  t.equal((await owner.call("GET", `/v1/exports/${requested.body.id}`)).status, 404, "another member's export is not visible, even to the owner");

  await host.runJobs();
  const done = await guest.call("GET", `/v1/exports/${requested.body.id}`);
  t.match(done.body, { status: "done", error: null });
  const grant = await guest.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(grant.status, 200);
  const file = await host.transfer(grant.body);
  t.equal(file.status, 200);
  t.equal(file.bytes.length, done.body.size);
  const lines = linesOf(file.bytes);
  t.equal(lines.length, done.body.line_count);
  t.same(lines[0], { type: "export", id: requested.body.id, workspace_id: workspaceId, requested_by: guest.userId, format: "jsonl", version: 1 });
  t.same(lines.filter((l) => l.type === "project").map((l) => l.id), [projectId], "a guest's export holds only its shared project");
  t.same(lines.filter((l) => l.type === "task").map((l) => l.title), ["Shared task"]);
  t.same(lines.filter((l) => l.type === "comment").map((l) => l.body), ["guest comment"]);
  t.equal(lines.filter((l) => l.type === "attachment").length, 0);
  t.notOk(file.bytes.toString().includes("Secret task") || file.bytes.toString().includes("board"), "nothing of the hidden project leaks");
  t.ok(lines.some((l) => l.type === "activity" && l.task_id === shared.body.id));

  const ownerExport = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  await host.runJobs();
  const ownerFile = await host.transfer((await owner.call("GET", `/v1/exports/${ownerExport.body.id}/download`)).body);
  const ownerLines = linesOf(ownerFile.bytes);
  t.same(ownerLines.filter((l) => l.type === "project").map((l) => l.name).sort(), ["Board only", "Launch"], "the owner sees every project");
  t.same(ownerLines.filter((l) => l.type === "task").map((l) => l.title).sort(), ["Secret task", "Shared task"]);
  t.same(ownerLines.filter((l) => l.type === "attachment").map((l) => l.filename), ["minutes.txt"]);
  t.ok(ownerLines.some((l) => l.type === "project_member" && l.user_id === guest.userId));
});

forEachDialectConfig(t, `outsiders cannot export; a requester removed before the job runs gets a failed export`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, clients } = await projectFixture(host.client, { leaver: { workspace: "member" } });
  const outsider = await host.client();
  t.equal((await outsider.call("POST", `/v1/workspaces/${workspaceId}/exports`)).status, 404);
  const requested = await clients.leaver!.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${clients.leaver!.userId}`)).status, 204);
  await host.runJobs();
  const row = await host.db.db.selectFrom("pm_exports").selectAll().where("id", "=", requested.body.id).executeTakeFirstOrThrow();
  t.equal(row.status, "failed");
  t.equal(row.size, null, "nothing was written for a requester without access");
  t.equal((await clients.leaver!.call("GET", `/v1/exports/${requested.body.id}`)).status, 404, "a former member no longer sees it");
});

forEachDialectConfig(t, `an export's download grant ends when its requester leaves the workspace (403 grant_revoked)`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, clients } = await projectFixture(host.client, { leaver: { workspace: "member" } });
  const leaver = clients.leaver!;
  const requested = await leaver.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  await host.runJobs();
  const grant = await leaver.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(grant.status, 200);
  t.equal((await host.transfer(grant.body)).status, 200, "the grant serves the export while its requester is a member");
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${leaver.userId}`)).status, 204);
  const refused = await host.transfer(grant.body);
  t.equal(refused.status, 403, "a former member's export grant is refused");
  t.match(JSON.parse(refused.bytes.toString("utf8")), { code: "grant_revoked" });
});
