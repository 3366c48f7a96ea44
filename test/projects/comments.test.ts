/**
 * Spec rule 5 (first part): `client_mutation_id` is unique per author and task, so a retried
 * POST /v1/tasks/:id/comments answers the comment the first call created and writes nothing
 * more (one row, one TaskEvent, one CommentAdded); the same id with other content is a 422;
 * commenters may comment, viewers may not — SQLite and Postgres.
 */
import t from "tap";
import { projectFixture, startProjectsServer } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, `a comment retried with the same client_mutation_id returns the same comment`, async (t, config, dialect) => {
  const { client, db } = await startProjectsServer(t, config);
  const { owner, projectId, clients } = await projectFixture(client, {
    critic: { workspace: "member", project: "commenter" },
    reader: { workspace: "guest", project: "viewer" },
  });
  const critic = clients.critic!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Review" });
  const path = `/v1/tasks/${task.body.id}/comments`;
  const body = { body: "Looks good @owner", mentions: [owner.userId], client_mutation_id: "cm-1" };

  const first = await critic.call("POST", path, body);
  t.equal(first.status, 201);
  t.match(first.body, { body: "Looks good @owner", mentions: [owner.userId], author_id: critic.userId, client_mutation_id: "cm-1" });
  const retries = await Promise.all([critic.call("POST", path, body), critic.call("POST", path, body)]);
  for (const retry of retries) {
    t.equal(retry.status, 201);
    t.same(retry.body, first.body, "the retry answers the very same comment");
  }
  const reused = await critic.call("POST", path, { ...body, body: "Something else" });
  t.equal(reused.status, 422);
  t.equal(reused.body.code, "client_mutation_id_reused");
  const otherAuthor = await owner.call("POST", path, body);
  t.equal(otherAuthor.status, 201, "the id is scoped to its author");
  t.not(otherAuthor.body.id, first.body.id);

  const rows = await db.db.selectFrom("pm_comments").select("id").where("task_id", "=", task.body.id).execute();
  t.equal(rows.length, 2, "one comment per author, whatever the retries");
  const events = await db.db.selectFrom("outbox").select("id").where("type", "=", "CommentAdded").execute();
  t.equal(events.length, 2, "one CommentAdded per created comment");

  const listed = await critic.call("GET", path);
  t.same(listed.body.data.map((c: { id: string }) => c.id), [first.body.id, otherAuthor.body.id]);
  t.equal((await clients.reader!.call("POST", path, { body: "me too", client_mutation_id: "r1" })).status, 403, "a viewer may not comment");
  t.equal((await clients.reader!.call("GET", path)).status, 200, "but may read the comments");
  const invalid = await critic.call("POST", path, { body: "hi", mentions: ["not-a-user"], client_mutation_id: "cm-2" });
  t.equal(invalid.status, 422);
});

// Spec rule 5: a retry with the same client_mutation_id and content returns the first comment.
// The content compared is the one the comment was added with, not the edited one, so a retry of
// the original POST after an edit is still the same request; any other content is a 422.
forEachDialectConfig(t, `a retry of the original comment POST after an edit answers the comment as it is now`, async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { owner, projectId, clients } = await projectFixture(client, { critic: { workspace: "member", project: "commenter" } });
  const critic = clients.critic!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Review" });
  const path = `/v1/tasks/${task.body.id}/comments`;
  const original = { body: "Looks good @owner", mentions: [owner.userId], client_mutation_id: "cm-1" };
  const first = await critic.call("POST", path, original);
  t.equal(first.status, 201);
  const edited = await critic.call("PATCH", `/v1/comments/${first.body.id}`, { body: "Looks fine", mentions: [] });
  t.equal(edited.status, 200);
  t.equal(edited.body.body, "Looks fine");

  const retry = await critic.call("POST", path, original);
  t.equal(retry.status, 201, "the same request: answered like any replay");
  t.equal(retry.body.id, first.body.id, "the first comment");
  t.equal(retry.body.body, "Looks fine", "as it is now");
  t.same(retry.body.mentions, []);
  const spaced = await critic.call("POST", path, { ...original, body: "  Looks good @owner  " });
  t.equal(spaced.body.id, first.body.id, "content is compared as validated (trimmed), like the first call");

  const asEdited = await critic.call("POST", path, { body: "Looks fine", mentions: [], client_mutation_id: "cm-1" });
  t.equal(asEdited.status, 422, "the edited content is not what the id was first used for");
  t.equal(asEdited.body.code, "client_mutation_id_reused");
  const otherMentions = await critic.call("POST", path, { ...original, mentions: [] });
  t.equal(otherMentions.status, 422, "other mentions are other content");
  t.equal(otherMentions.body.code, "client_mutation_id_reused");

  const rows = await db.db.selectFrom("pm_comments").select(["id", "body"]).where("task_id", "=", task.body.id).execute();
  t.same(rows, [{ id: first.body.id, body: "Looks fine" }], "one comment, holding only its edited body");
  const added = await db.db.selectFrom("outbox").select("id").where("type", "=", "CommentAdded").execute();
  t.equal(added.length, 1, "no CommentAdded for a replay");
});
