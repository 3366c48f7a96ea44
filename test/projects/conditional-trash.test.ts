/**
 * docs/conventions.md, Optimistic concurrency: a received If-Match is evaluated on every change of
 * a versioned task, trash and restore too. DELETE /v1/tasks/:id and POST /v1/tasks/:id/restore
 * with a stale If-Match answer 412 version_mismatch with the current task and change nothing;
 * with the current version they make the change; without the header they behave as before
 * (If-Match is optional there). (test/koa/openapi.test.ts checks the OpenAPI of every such route.) On Postgres,
 * two deletes with the same If-Match race on real connections: one wins, the other is 412.
 */
import t from "tap";
import { projectFixture, startProjectsServer, type Answer, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, "a task's trash and restore evaluate If-Match", async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { clients, projectId } = await projectFixture(client, { dev: { workspace: "member", project: "contributor" } });
  const dev = clients.dev!;
  const created = await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Guarded" });
  const id = created.body.id as string;
  const edited = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "Guarded, edited" }, { "If-Match": '"1"' });
  t.equal(edited.body.version, 2);
  const trashFacts = async (kind: string) =>
    (await db.db.selectFrom("pm_task_events").select("kind").where("task_id", "=", id).where("kind", "=", kind).execute()).length;

  const staleDelete = await dev.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": '"99"' });
  t.equal(staleDelete.status, 412, "a stale If-Match on DELETE is refused");
  t.equal(staleDelete.body.code, "version_mismatch");
  t.match(staleDelete.body.current, { id, version: 2, deleted_at: null, title: "Guarded, edited" }, "412 carries the current task");
  t.match((await dev.call("GET", `/v1/tasks/${id}`)).body, { version: 2, deleted_at: null }, "the task is not in the trash");
  t.equal(await trashFacts("task.deleted"), 0, "no deletion was recorded");

  const oldVersion = await dev.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": '"1"' });
  t.equal(oldVersion.status, 412, "the version before the last edit is stale too");

  const deleted = await dev.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": '"2"' });
  t.equal(deleted.status, 200, "the current version in If-Match trashes the task");
  t.match(deleted.body, { version: 3, deleted_at: String });
  t.equal(deleted.headers.get("etag"), '"3"');
  const again = await dev.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": '"2"' });
  t.equal(again.status, 412, "a second delete based on the version before the deletion is stale");
  t.match(again.body.current, { version: 3, deleted_at: String });

  const staleRestore = await dev.call("POST", `/v1/tasks/${id}/restore`, undefined, { "If-Match": '"2"' });
  t.equal(staleRestore.status, 412, "a stale If-Match on restore is refused");
  t.equal(staleRestore.body.code, "version_mismatch");
  t.match(staleRestore.body.current, { id, version: 3, deleted_at: String });
  t.match((await dev.call("GET", `/v1/tasks/${id}`)).body, { version: 3, deleted_at: String }, "the task stays in the trash");
  t.equal(await trashFacts("task.restored"), 0, "no restoration was recorded");

  const restored = await dev.call("POST", `/v1/tasks/${id}/restore`, undefined, { "If-Match": "3" });
  t.equal(restored.status, 200, "the current version (bare) restores the task");
  t.match(restored.body, { version: 4, deleted_at: null });

  const garbage = await dev.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": "*" });
  t.equal(garbage.status, 400, "an If-Match that names no version is 400");
  t.equal(garbage.body.code, "invalid_if_match");

  // Without the header: unconditional and idempotent, as before.
  const plain = await dev.call("DELETE", `/v1/tasks/${id}`);
  t.match(plain, { status: 200, body: { version: 5, deleted_at: String } }, "without If-Match the delete is unconditional");
  t.equal((await dev.call("DELETE", `/v1/tasks/${id}`)).body.version, 5, "and deleting again changes nothing");
  const plainRestore = await dev.call("POST", `/v1/tasks/${id}/restore`);
  t.match(plainRestore, { status: 200, body: { version: 6, deleted_at: null } }, "without If-Match the restore is unconditional");
  t.equal(await trashFacts("task.deleted"), 2, "one deletion fact per accepted deletion");
  t.equal(await trashFacts("task.restored"), 2, "one restoration fact per accepted restoration");

});

t.test("two deletes of a task with the same If-Match on real connections: one wins, the other is 412 [postgres]", async (t) => {
  const { client, db } = await startProjectsServer(t, "postgres");
  const { clients, projectId } = await projectFixture(client, {
    ann: { workspace: "member", project: "contributor" },
    ben: { workspace: "member", project: "contributor" },
  });
  const rounds = 8;
  for (let round = 0; round < rounds; round++) {
    const task = await clients.ann!.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Race ${round}` });
    const id = task.body.id as string;
    const trash = (c: Client): Promise<Answer> => c.call("DELETE", `/v1/tasks/${id}`, undefined, { "If-Match": '"1"' });
    const [a, b] = await Promise.all([trash(clients.ann!), trash(clients.ben!)]);
    t.same([a.status, b.status].sort(), [200, 412], `round ${round}: one 200 and one 412`);
    const loser = a.status === 412 ? a : b;
    t.match(loser.body, { code: "version_mismatch", current: { id, version: 2, deleted_at: String } }, "the loser sees the trashed task");
    const facts = await db.db.selectFrom("pm_task_events").select("kind").where("task_id", "=", id).where("kind", "=", "task.deleted").execute();
    t.equal(facts.length, 1, "exactly one deletion recorded");
  }
});
