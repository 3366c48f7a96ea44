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
