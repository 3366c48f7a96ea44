/**
 * docs/conventions.md, Optimistic concurrency: a received If-Match is evaluated on every change of
 * a versioned task, its move too. POST /v1/tasks/:id/move with a stale If-Match answers 412
 * version_mismatch with the current task and moves nothing (same rank, no change fact); with the
 * current version it moves the task; without the header it behaves as before (If-Match is
 * optional there). (test/koa/openapi.test.ts checks the OpenAPI of every such route.) On Postgres two moves of
 * one task with the same If-Match race on real connections: one wins, the other is 412.
 */
import t from "tap";
import { projectFixture, startProjectsServer, type Answer, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

/** A task.updated fact that records a rank change (a move), stored as JSON text or as an object. */
const changesRank = (row: { readonly data: unknown }): boolean => {
  const data = (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as { changes?: Record<string, unknown> };
  return data.changes?.rank !== undefined;
};

forEachDialectConfig(t, "a task's move evaluates If-Match", async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { clients, projectId } = await projectFixture(client, { dev: { workspace: "member", project: "contributor" } });
  const dev = clients.dev!;
  const create = async (title: string) => (await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title })).body.id as string;
  const first = await create("First");
  const second = await create("Second");
  const id = await create("Moved");
  const edited = await dev.call("PATCH", `/v1/tasks/${id}`, { title: "Moved, edited" }, { "If-Match": '"1"' });
  t.equal(edited.body.version, 2);
  const rankFacts = async () =>
    (await db.db.selectFrom("pm_task_events").select("data").where("task_id", "=", id).where("kind", "=", "task.updated").execute()).filter(changesRank).length;
  const move = (body: Record<string, string>, headers: Record<string, string> = {}) => dev.call("POST", `/v1/tasks/${id}/move`, body, headers);

  const stale = await move({ before_id: first }, { "If-Match": '"1"' });
  t.equal(stale.status, 412, "a stale If-Match on move is refused");
  t.equal(stale.body.code, "version_mismatch");
  t.match(stale.body.current, { id, version: 2, title: "Moved, edited", rank: edited.body.rank }, "412 carries the current task");
  t.match((await dev.call("GET", `/v1/tasks/${id}`)).body, { version: 2, rank: edited.body.rank }, "the task did not move");
  t.equal(await rankFacts(), 0, "no move was recorded");

  const moved = await move({ before_id: first, after_id: second }, { "If-Match": '"2"' });
  t.equal(moved.status, 200, "the current version in If-Match moves the task");
  t.match(moved.body, { version: 3 });
  t.equal(moved.headers.get("etag"), '"3"');
  t.ok(String(moved.body.rank) !== String(edited.body.rank), "to a new rank");
  t.equal(await rankFacts(), 1, "one move recorded");
  const again = await move({ after_id: first }, { "If-Match": '"2"' });
  t.equal(again.status, 412, "a second move based on the version before the first is stale");
  t.match(again.body.current, { version: 3, rank: moved.body.rank });

  const bare = await move({ after_id: first }, { "If-Match": "3" });
  t.match(bare, { status: 200, body: { version: 4 } }, "the current version (bare) moves the task");
  t.match(await move({ after_id: first }, { "If-Match": "*" }), { status: 400, body: { code: "invalid_if_match" } }, "an If-Match that names no version is 400");

  // A stale If-Match is answered before the state rules: a trashed task is 412, not 409, when stale.
  t.equal((await dev.call("DELETE", `/v1/tasks/${id}`)).status, 200);
  t.match(await move({ before_id: second }, { "If-Match": "4" }), { status: 412, body: { code: "version_mismatch", current: { version: 5 } } });
  t.match(await move({ before_id: second }, { "If-Match": "5" }), { status: 409, body: { code: "task_deleted" } }, "the current version meets the state rule");
  t.equal((await dev.call("POST", `/v1/tasks/${id}/restore`)).status, 200);

  // Without the header: unconditional, as before.
  const plain = await move({ before_id: second });
  t.match(plain, { status: 200, body: { version: 7 } }, "without If-Match the move is unconditional");
  t.equal(await rankFacts(), 3, "one rank change fact per accepted move");
});

t.test("two moves of a task with the same If-Match on real connections: one wins, the other is 412 [postgres]", async (t) => {
  const { client, db } = await startProjectsServer(t, "postgres");
  const { clients, projectId } = await projectFixture(client, {
    ann: { workspace: "member", project: "contributor" },
    ben: { workspace: "member", project: "contributor" },
  });
  const anchorA = (await clients.ann!.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Anchor A" })).body.id as string;
  const anchorB = (await clients.ann!.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Anchor B" })).body.id as string;
  for (let round = 0; round < 8; round++) {
    const task = await clients.ann!.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Race ${round}` });
    const id = task.body.id as string;
    const move = (c: Client, anchor: string): Promise<Answer> => c.call("POST", `/v1/tasks/${id}/move`, { after_id: anchor }, { "If-Match": '"1"' });
    const [a, b] = await Promise.all([move(clients.ann!, anchorA), move(clients.ben!, anchorB)]);
    t.same([a.status, b.status].sort(), [200, 412], `round ${round}: one 200 and one 412`);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 412 ? a : b;
    t.match(loser.body, { code: "version_mismatch", current: { id, version: 2, rank: winner.body?.rank } }, "the loser sees the moved task");
    const facts = (await db.db.selectFrom("pm_task_events").select("data").where("task_id", "=", id).where("kind", "=", "task.updated").execute()).filter(changesRank);
    t.equal(facts.length, 1, "exactly one move recorded");
  }
});
