/**
 * Notifications over HTTP (spec: Notification is a per-recipient delivery and read projection):
 * GET /v1/notifications lists only the caller's own, newest first with a cursor; the unread
 * count follows reads; marking one read is idempotent and another user's notification is 404;
 * read-all marks the rest; PATCH /v1/comments/:id notifies only newly added mentions; a revoked
 * member no longer sees what it was notified about — SQLite and Postgres.
 */
import t from "tap";
import { projectFixture } from "./support.js";
import { startSlice2aServer } from "./notifications-support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, `the caller's own notifications: list with cursor, unread count, mark read (one, all)`, async (t, config, dialect) => {
  const { client, drain } = await startSlice2aServer(t, config);
  const { owner, projectId, clients } = await projectFixture(client, {
    alice: { workspace: "member", project: "viewer" },
    bob: { workspace: "member", project: "commenter" },
  });
  const alice = clients.alice!;
  const bob = clients.bob!;
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Plan" })).body;
  const comments = [];
  for (let i = 0; i < 3; i++) {
    const c = await owner.call("POST", `/v1/tasks/${task.id}/comments`, { body: `note ${i}`, mentions: [alice.userId], client_mutation_id: `c${i}` });
    comments.push(c.body);
  }
  t.same((await alice.call("GET", "/v1/notifications")).body.data, [], "nothing before delivery (eventually consistent)");
  await drain();

  const first = await alice.call("GET", "/v1/notifications?limit=2");
  t.equal(first.status, 200);
  t.equal(first.body.data.length, 2);
  t.match(first.body.data[0], { kind: "mention", project_id: projectId, read_at: null, data: { task_id: task.id, comment_id: comments[2].id, excerpt: "note 2", task_title: "Plan" } });
  const second = await alice.call("GET", `/v1/notifications?limit=2&cursor=${first.body.next_cursor}`);
  t.equal(second.body.data.length, 1);
  t.equal(second.body.next_cursor, null);
  t.same([...first.body.data, ...second.body.data].map((n: { data: { comment_id: string } }) => n.data.comment_id), comments.map((c) => c.id).reverse(), "newest first");
  t.same((await bob.call("GET", "/v1/notifications")).body.data, [], "bob sees none of alice's");

  t.same((await alice.call("GET", "/v1/notifications/unread-count")).body, { count: 3 });
  const target = first.body.data[0].id;
  const read = await alice.call("POST", `/v1/notifications/${target}/read`);
  t.equal(read.status, 200);
  t.type(read.body.read_at, "string");
  const again = await alice.call("POST", `/v1/notifications/${target}/read`);
  t.equal(again.body.read_at, read.body.read_at, "marking read again changes nothing");
  t.same((await alice.call("GET", "/v1/notifications/unread-count")).body, { count: 2 });
  t.equal((await bob.call("POST", `/v1/notifications/${target}/read`)).status, 404, "another user's notification is 404");
  t.equal((await alice.call("POST", "/v1/notifications/not-an-id/read")).status, 404);
  t.same((await alice.call("POST", "/v1/notifications/read-all")).body, { updated: 2 });
  t.same((await alice.call("GET", "/v1/notifications/unread-count")).body, { count: 0 });
  t.same((await alice.call("POST", "/v1/notifications/read-all")).body, { updated: 0 }, "read-all is idempotent");

  // Editing: only newly added mentions are notified.
  const edit = await owner.call("PATCH", `/v1/comments/${comments[0].id}`, { body: "note 0, and @bob", mentions: [alice.userId, bob.userId] });
  t.equal(edit.status, 200);
  t.match(edit.body, { id: comments[0].id, body: "note 0, and @bob", mentions: [alice.userId, bob.userId] });
  await drain();
  t.equal((await bob.call("GET", "/v1/notifications")).body.data.length, 1, "bob, newly mentioned, is notified");
  t.equal((await alice.call("GET", "/v1/notifications")).body.data.length, 3, "alice, already mentioned, is not notified again");
  t.equal((await bob.call("PATCH", `/v1/comments/${comments[0].id}`, { body: "mine now" })).status, 403, "only the author edits");
  t.equal((await (await client()).call("PATCH", `/v1/comments/${comments[0].id}`, { body: "x" })).status, 404, "an outsider gets 404");

  // Revocation hides what the membership once notified.
  t.equal((await owner.call("DELETE", `/v1/projects/${projectId}/members/${alice.userId}?reason=test`)).status, 204);
  t.same((await alice.call("GET", "/v1/notifications")).body.data, [], "a revoked member sees none of the project's notifications");
  t.equal((await alice.call("POST", `/v1/notifications/${target}/read`)).status, 404);
});
