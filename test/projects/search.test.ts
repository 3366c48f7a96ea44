/**
 * Search (spec: tasks and comments visible to the caller; eventually consistent indexing):
 * GET /v1/search finds tasks and comments once the indexing consumer ran, filters by the
 * caller's visible projects before the limit (a guest never gets a hit from an unshared
 * project, and its first page is not emptied by hidden hits), drops tasks in the trash,
 * pages with a cursor, and an older or repeated event never overwrites newer text — SQLite
 * and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { Transactions } from "../../ports/Transactions.js";
import { searchIndexingConsumer } from "../../core/projects/SearchIndexing.js";
import { projectFixture, type Client } from "./support.js";
import { outboxEvents, startSlice2aServer } from "./notifications-support.js";
import { forEachDialectConfig } from "../hosts/support.js";

const hits = async (c: Client, q: string, extra = "") => {
  const answer = await c.call("GET", `/v1/search?q=${encodeURIComponent(q)}${extra}`);
  if (answer.status !== 200) throw new Error(`search: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as { data: { id: string; kind: string; project_id: string; text: string }[]; next_cursor: string | null };
};

forEachDialectConfig(t, `search finds visible tasks and comments; a guest never gets hits from unshared projects`, async (t, config, dialect) => {
  const { client, drain } = await startSlice2aServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(client, { guest: { workspace: "guest", project: "viewer" } });
  const guest = clients.guest!;
  const hidden = (await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Hidden" })).body.id;
  const shared = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Launch rocket engines" })).body;
  await owner.call("POST", `/v1/tasks/${shared.id}/comments`, { body: "The rocket needs fuel", client_mutation_id: "c1" });
  // Newer hidden hits than the visible ones: a limit applied before the filter would return nothing.
  for (let i = 0; i < 5; i++) {
    const secret = (await owner.call("POST", `/v1/projects/${hidden}/tasks`, { title: `Secret rocket ${i}` })).body;
    await owner.call("POST", `/v1/tasks/${secret.id}/comments`, { body: `rocket budget ${i}`, client_mutation_id: `s${i}` });
  }
  t.same((await hits(owner, "rocket")).data, [], "nothing before the indexing consumer ran (eventually consistent)");
  await drain();
  const all = await hits(owner, "rocket", "&limit=50");
  t.equal(all.data.length, 12, "the owner finds every task and comment");
  const guestPage = await hits(guest, "rocket", "&limit=1");
  t.equal(guestPage.data.length, 1, "the guest's first page is filled from its visible projects");
  t.equal(guestPage.data[0]!.project_id, projectId);
  const guestAll = await hits(guest, "rocket", "&limit=50");
  t.same(guestAll.data.map((h) => h.kind).sort(), ["comment", "task"], "the guest sees the shared task and its comment only");
  t.ok(guestAll.data.every((h) => h.project_id === projectId), "never a hit of the unshared project");
  t.same((await hits(guest, "secret")).data, [], "not even by the hidden project's words");
  t.same((await hits(guest, "rock eng")).data.map((h) => h.id), [shared.id], "every word must match, as a prefix");
  const stranger = await client();
  t.equal((await stranger.call("GET", "/v1/search?q=rocket")).body.data.length, 0, "a user outside the workspace finds nothing");
  t.equal((await owner.call("GET", "/v1/search?q=%20%21")).status, 422, "a query without words is 422");

  // Paging: newest first by id, no repeats, no gaps.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof hits>> = await hits(owner, "rocket", `&limit=5${cursor === null ? "" : `&cursor=${cursor}`}`);
    seen.push(...page.data.map((h) => h.id));
    cursor = page.next_cursor;
  } while (cursor !== null);
  t.same(seen, all.data.map((h) => h.id), "cursor pages equal the single page");

  await owner.call("DELETE", `/v1/tasks/${shared.id}`);
  t.same((await hits(guest, "rocket")).data, [], "a task in the trash and its comments leave the results at once");
});

forEachDialectConfig(t, `an older or repeated event never overwrites newer indexed text`, async (t, config, dialect) => {
  const { client, drain, db, server } = await startSlice2aServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Alpha" })).body;
  await owner.call("PATCH", `/v1/tasks/${task.id}`, { title: "Bravo" }, { "If-Match": '"1"' });
  await drain();
  t.same((await hits(owner, "bravo")).data.map((h) => h.id), [task.id]);
  const [created] = await outboxEvents(db, "TaskCreated");
  await server.core.runtime.runPromise(Effect.flatMap(Transactions, (tx) => tx.run(searchIndexingConsumer.handle(created!))));
  t.same((await hits(owner, "alpha")).data, [], "replaying TaskCreated (version 1) does not bring the old title back");
  t.same((await hits(owner, "bravo")).data.map((h) => h.id), [task.id], "the newer title stays");
});

forEachDialectConfig(t, `a relay batch indexes each document at its newest version in the batch, and never below what is stored`, async (t, config) => {
  const { client, drain, db, server } = await startSlice2aServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Alpha" })).body;
  await owner.call("PATCH", `/v1/tasks/${task.id}`, { title: "Bravo" }, { "If-Match": '"1"' });
  await owner.call("PATCH", `/v1/tasks/${task.id}`, { title: "Charlie" }, { "If-Match": '"2"' });
  const other = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Delta" })).body;
  await drain();
  t.same((await hits(owner, "charlie")).data.map((h) => h.id), [task.id]);
  const events = [...(await outboxEvents(db, "TaskCreated")), ...(await outboxEvents(db, "TaskChanged"))];
  t.ok(events.length >= 4, "the task's three versions and the other task's creation");
  // Replayed as one batch, out of order: per document only the newest version counts.
  await server.core.runtime.runPromise(
    Effect.flatMap(Transactions, (tx) => tx.run(searchIndexingConsumer.handleBatch([...events].reverse()))),
  );
  t.same((await hits(owner, "alpha")).data, [], "no older title comes back");
  t.same((await hits(owner, "bravo")).data, []);
  t.same((await hits(owner, "charlie")).data.map((h) => h.id), [task.id], "the newest title stays");
  t.same((await hits(owner, "delta")).data.map((h) => h.id), [other.id], "the other document is indexed too");
});
