/**
 * Spec rule 2 under real concurrency: two PATCHes sent in parallel over HTTP with the same
 * expected version against Postgres (a pool of real connections) — exactly one answers 200,
 * the other 412 with the winner's task as `current`, and no update is lost.
 */
import t from "tap";
import { projectFixture, startProjectsServer } from "./support.js";

t.test("two concurrent PATCHes with the same expected version: exactly one wins, no lost update [postgres]", async (t) => {
  const { client, db } = await startProjectsServer(t, "postgres");
  const { clients, projectId } = await projectFixture(client, {
    ann: { workspace: "member", project: "contributor" },
    ben: { workspace: "member", project: "contributor" },
  });
  const ann = clients.ann!;
  const ben = clients.ben!;
  const rounds = 10;
  for (let round = 0; round < rounds; round++) {
    const task = await ann.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Race ${round}` });
    const [a, b] = await Promise.all([
      ann.call("PATCH", `/v1/tasks/${task.body.id}`, { title: `Ann ${round}` }, { "If-Match": '"1"' }),
      ben.call("PATCH", `/v1/tasks/${task.body.id}`, { title: `Ben ${round}` }, { "If-Match": '"1"' }),
    ]);
    const statuses = [a.status, b.status].sort();
    t.same(statuses, [200, 412], `round ${round}: one 200 and one 412`);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    t.match(loser.body, { code: "version_mismatch", current: { version: 2, title: winner.body.title } }, "the loser sees the winner's task");
    const final = await ann.call("GET", `/v1/tasks/${task.body.id}`);
    t.match(final.body, { version: 2, title: winner.body.title }, "the winner's write is what is stored");
    const events = await db.db
      .selectFrom("pm_task_events")
      .select("kind")
      .where("task_id", "=", task.body.id)
      .where("kind", "=", "task.updated")
      .execute();
    t.equal(events.length, 1, "exactly one TaskEvent for the one accepted update");
    const outbox = await db.db.selectFrom("outbox").select("id").where("type", "=", "TaskChanged").execute();
    t.equal(outbox.length, round + 1, "exactly one TaskChanged per round in the outbox");
  }
});
