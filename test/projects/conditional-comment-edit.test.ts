/**
 * docs/conventions.md, Optimistic concurrency: a received If-Match is evaluated on every change of
 * a versioned resource. A comment is versioned (pm_comments.version counts its edits, 1 when
 * added): its POST (a retry too), the list and PATCH /v1/comments/:id answer it, the POST and
 * PATCH also as the ETag. With a stale
 * If-Match it answers 412 version_mismatch with the current comment (its version included) and
 * changes nothing (same body, no comment.edited fact), before the trash rule; with the current
 * version it edits; without the header it behaves as before. (test/koa/openapi.test.ts checks the OpenAPI of every such route.) On Postgres two edits with the same If-Match race on real connections: one
 * wins, the other is 412.
 */
import t from "tap";
import { projectFixture, startProjectsServer, type Answer, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, "a comment's edit evaluates If-Match", async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { owner, clients, projectId } = await projectFixture(client, { critic: { workspace: "member", project: "commenter" } });
  const critic = clients.critic!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Review" });
  const added = await critic.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: "First take", mentions: [], client_mutation_id: "cm-1" });
  t.equal(added.status, 201);
  const id = added.body.id as string;
  const edits = async () => (await db.db.selectFrom("pm_task_events").select("id").where("task_id", "=", task.body.id).where("kind", "=", "comment.edited").execute()).length;
  const edit = (body: string, headers: Record<string, string> = {}) => critic.call("PATCH", `/v1/comments/${id}`, { body, mentions: [] }, headers);

  const first = await edit("Second take");
  t.match(first, { status: 200, body: { id, body: "Second take", version: 2 } }, "an edit answers the comment with its version");
  t.equal(first.headers.get("etag"), '"2"', "and its version as the ETag");

  const stale = await edit("Third take", { "If-Match": '"1"' });
  t.equal(stale.status, 412, "a stale If-Match on an edit is refused");
  t.equal(stale.body.code, "version_mismatch");
  t.match(stale.body.current, { id, body: "Second take", version: 2 }, "412 carries the current comment with its version");
  const stored = await db.db.selectFrom("pm_comments").select(["body", "version"]).where("id", "=", id).executeTakeFirstOrThrow();
  t.match(stored, { body: "Second take", version: 2 }, "the comment did not change");
  t.equal(await edits(), 1, "no edit was recorded");
  const sameContent = await edit("Second take", { "If-Match": '"1"' });
  t.equal(sameContent.status, 412, "an edit that changes nothing is still refused when stale");

  const current = await edit("Third take", { "If-Match": String(first.headers.get("etag")) });
  t.match(current, { status: 200, body: { body: "Third take", version: 3 } }, "the current version in If-Match edits the comment");
  t.equal(current.headers.get("etag"), '"3"');
  const bare = await edit("Fourth take", { "If-Match": "3" });
  t.match(bare, { status: 200, body: { version: 4 } }, "the current version (bare) edits the comment");
  t.match(await edit("Fifth take", { "If-Match": "*" }), { status: 400, body: { code: "invalid_if_match" } }, "an If-Match that names no version is 400");

  // A stale If-Match is answered before the state rules: on a trashed task, 412 when stale, 409 when current.
  t.equal((await owner.call("DELETE", `/v1/tasks/${task.body.id}`)).status, 200);
  t.match(await edit("Fifth take", { "If-Match": "3" }), { status: 412, body: { code: "version_mismatch", current: { version: 4 } } });
  t.match(await edit("Fifth take", { "If-Match": "4" }), { status: 409, body: { code: "task_deleted" } }, "the current version meets the trash rule");
  t.equal((await owner.call("POST", `/v1/tasks/${task.body.id}/restore`)).status, 200);

  const plain = await edit("Fifth take");
  t.match(plain, { status: 200, body: { body: "Fifth take", version: 5 } }, "without If-Match the edit is unconditional");
  t.equal(await edits(), 4, "one edit fact per accepted edit");
});

// The version an If-Match names must be one the client was told: adding a comment answers it
// (version 1, ETag "1"), a retry of the POST answers the comment as it is now with its version,
// and the list carries each comment's version.
forEachDialectConfig(t, "a comment's version is answered by its POST, its retry and the list", async (t, config) => {
  const { client } = await startProjectsServer(t, config);
  const { owner, clients, projectId } = await projectFixture(client, { critic: { workspace: "member", project: "commenter" } });
  const critic = clients.critic!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Review" });
  const path = `/v1/tasks/${task.body.id}/comments`;
  const original = { body: "First take", mentions: [], client_mutation_id: "cm-1" };
  const added = await critic.call("POST", path, original);
  t.match(added, { status: 201, body: { body: "First take", version: 1 } }, "a new comment answers version 1");
  t.equal(added.headers.get("etag"), '"1"', "and it as the ETag");
  const edited = await critic.call("PATCH", `/v1/comments/${added.body.id}`, { body: "Second take", mentions: [] }, { "If-Match": String(added.headers.get("etag")) });
  t.match(edited, { status: 200, body: { version: 2 } }, "the POST's ETag is a usable If-Match");
  const retry = await critic.call("POST", path, original);
  t.match(retry, { status: 201, body: { id: added.body.id, body: "Second take", version: 2 } }, "a retry answers the comment as it is now, with its version");
  t.equal(retry.headers.get("etag"), '"2"');
  const other = await critic.call("POST", path, { body: "Another", mentions: [], client_mutation_id: "cm-2" });
  const listed = await critic.call("GET", path);
  t.same(
    listed.body.data.map((c: { id: string; version: number }) => [c.id, c.version]),
    [[added.body.id, 2], [other.body.id, 1]],
    "the list carries each comment's version",
  );
});

t.test("two edits of a comment with the same If-Match on real connections: one wins, the other is 412 [postgres]", async (t) => {
  const { client, db } = await startProjectsServer(t, "postgres");
  const { owner, clients, projectId } = await projectFixture(client, { critic: { workspace: "member", project: "commenter" } });
  const critic = clients.critic!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Race" });
  for (let round = 0; round < 8; round++) {
    const added = await critic.call("POST", `/v1/tasks/${task.body.id}/comments`, { body: `Round ${round}`, mentions: [], client_mutation_id: `race-${round}` });
    const id = added.body.id as string;
    const edit = (c: Client, body: string): Promise<Answer> => c.call("PATCH", `/v1/comments/${id}`, { body, mentions: [] }, { "If-Match": '"1"' });
    const [a, b] = await Promise.all([edit(critic, `A ${round}`), edit(critic, `B ${round}`)]);
    t.same([a.status, b.status].sort(), [200, 412], `round ${round}: one 200 and one 412`);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 412 ? a : b;
    t.match(loser.body, { code: "version_mismatch", current: { id, version: 2, body: winner.body?.body } }, "the loser sees the winning edit");
    const stored = await db.db.selectFrom("pm_comments").select(["body", "version"]).where("id", "=", id).executeTakeFirstOrThrow();
    t.match(stored, { body: winner.body?.body, version: 2 }, "the winning edit is stored");
  }
});
