/**
 * Spec rule 2 over HTTP: a task answers with ETag "<version>"; PATCH needs If-Match (428
 * without), a stale version answers 412 with the current task in `current`, a matching one
 * answers 200 with the next version. 409 is for state rules: an illegal workflow move
 * (illegal_status_transition) or a task in the trash (task_deleted) — SQLite and Postgres.
 */
import t from "tap";
import { projectFixture, startProjectsServer } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, `conditional task updates`, async (t, config, dialect) => {
  const { client } = await startProjectsServer(t, config);
  const { clients, projectId } = await projectFixture(client, {
    dev: { workspace: "member", project: "contributor" },
    reader: { workspace: "member", project: "viewer" },
  });
  const dev = clients.dev!;
  const created = await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Write spec" });
  t.equal(created.status, 201);
  t.match(created.body, { status: "todo", version: 1, assignee_id: null, deleted_at: null });
  const id = created.body.id as string;

  const read = await dev.call("GET", `/v1/tasks/${id}`);
  t.equal(read.headers.get("etag"), '"1"', "GET answers the version as ETag");

  const missing = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "x" });
  t.equal(missing.status, 428);
  t.equal(missing.body.code, "precondition_required");

  const first = await dev.call("PATCH", `/v1/tasks/${id}`, { status: "in_progress" }, { "If-Match": '"1"' });
  t.equal(first.status, 200);
  t.match(first.body, { status: "in_progress", version: 2 });
  t.equal(first.headers.get("etag"), '"2"');

  const stale = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "Stale edit" }, { "If-Match": '"1"' });
  t.equal(stale.status, 412);
  t.equal(stale.body.code, "version_mismatch");
  t.match(stale.body.current, { id, version: 2, status: "in_progress", title: "Write spec" }, "412 carries the current task");
  t.same(
    Object.keys(stale.body.current as object).sort(),
    Object.keys(first.body as object).sort(),
    "`current` is the same wire view a successful answer carries (snake_case fields)",
  );

  const bare = await dev.call("PATCH", `/v1/tasks/${id}`, { assignee_id: dev.userId }, { "If-Match": "2" });
  t.equal(bare.status, 200, "a bare version number is accepted");
  t.equal(bare.body.assignee_id, dev.userId);

  const outsider = await dev.call("PATCH", `/v1/tasks/${id}`, { assignee_id: crypto.randomUUID() }, { "If-Match": '"3"' });
  t.equal(outsider.status, 422, "an assignee who cannot see the project is refused");

  const done = await dev.call("PATCH", `/v1/tasks/${id}`, { status: "done" }, { "If-Match": '"3"' });
  t.equal(done.status, 200);
  const illegal = await dev.call("PATCH", `/v1/tasks/${id}`, { status: "in_progress" }, { "If-Match": '"4"' });
  t.equal(illegal.status, 409);
  t.equal(illegal.body.code, "illegal_status_transition");
  const reopened = await dev.call("PATCH", `/v1/tasks/${id}`, { status: "todo" }, { "If-Match": '"4"' });
  t.equal(reopened.status, 200, "reopening is a legal move");
  t.equal(reopened.body.version, 5);

  const unchanged = await dev.call("PATCH", `/v1/tasks/${id}`, { status: "todo" }, { "If-Match": '"5"' });
  t.equal(unchanged.body.version, 5, "a PATCH that changes nothing keeps the version");

  const readOnly = await clients.reader!.call("PATCH", `/v1/tasks/${id}`, { title: "x" }, { "If-Match": '"5"' });
  t.equal(readOnly.status, 403, "a viewer sees the task but may not edit it");

  const deleted = await dev.call("DELETE", `/v1/tasks/${id}`);
  t.equal(deleted.status, 200);
  t.match(deleted.body, { version: 6, deleted_at: String });
  t.equal((await dev.call("DELETE", `/v1/tasks/${id}`)).body.version, 6, "deleting again changes nothing");
  const inTrash = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "x" }, { "If-Match": '"6"' });
  t.equal(inTrash.status, 409);
  t.equal(inTrash.body.code, "task_deleted");
  const comment = await dev.call("POST", `/v1/tasks/${id}/comments`, { body: "x", client_mutation_id: "t1" });
  t.equal(comment.body.code, "task_deleted", "a task in the trash takes no comments");
  const list = await dev.call("GET", `/v1/projects/${projectId}/tasks`);
  t.same(list.body.data, [], "deleted tasks leave the list");
  t.equal((await dev.call("GET", `/v1/tasks/${id}`)).status, 200, "but stay readable for restore and audit");

  const restored = await dev.call("POST", `/v1/tasks/${id}/restore`);
  t.match(restored.body, { version: 7, deleted_at: null });
  const after = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "Write the spec" }, { "If-Match": '"7"' });
  t.equal(after.status, 200);
  t.equal((await dev.call("GET", `/v1/projects/${projectId}/tasks`)).body.data.length, 1);
});

t.test("task lists page by (rank, id) with an opaque cursor and filter by status", async (t) => {
  const { client, server } = await startProjectsServer(t, "sqlite");
  const { owner, projectId } = await projectFixture(client);
  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  for (const path of ["/v1/projects/{id}/tasks", "/v1/tasks/{id}", "/v1/tasks/{id}/comments", "/v1/activity", "/v1/projects/{id}/members/{userId}"]) {
    t.ok(document.paths[path], `OpenAPI describes ${path}`);
  }
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Task ${i}` })).body.id);
  await owner.call("PATCH", `/v1/tasks/${ids[2]}`, { status: "in_progress" }, { "If-Match": '"1"' });
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: Array<{ id: string }>; next_cursor: string | null } } = await owner.call(
      "GET",
      `/v1/projects/${projectId}/tasks?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
    );
    t.ok(page.body.data.length <= 3);
    seen.push(...page.body.data.map((task) => task.id));
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  t.same(seen, ids, "creation order, every task once");
  const working = await owner.call("GET", `/v1/projects/${projectId}/tasks?status=in_progress`);
  t.same(working.body.data.map((task: { id: string }) => task.id), [ids[2]]);
  const bad = await owner.call("GET", `/v1/projects/${projectId}/tasks?cursor=garbage`);
  t.equal(bad.status, 400);
  t.equal(bad.body.code, "invalid_cursor");
});
