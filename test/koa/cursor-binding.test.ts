/**
 * Lists (docs/conventions.md: "A cursor the server cannot read answers 400 invalid_cursor"): a
 * cursor is bound to the list that issued it — the operation, its path parameters and its
 * filters — so a cursor of one list given to another is refused instead of being read as a
 * position in it (docs/known-gaps.md listed it open until this change).
 */
import t from "tap";
import { encodeCursor } from "../../core/kernel/Cursor.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "../projects/support.js";

const withCursor = (path: string, cursor: string) => `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;

forEachDialectConfig(t, "a cursor is read only by the list that issued it: another list, project or filter answers 400 invalid_cursor", async (t, config) => {
  const { client } = await startProjectsServer(t, config);
  const { owner, projectId, workspaceId } = await projectFixture(client, {});
  const other = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Other" });
  t.equal(other.status, 201);
  for (const project of [projectId, other.body.id as string]) {
    for (const title of ["one", "two", "three"]) {
      t.equal((await owner.call("POST", `/v1/projects/${project}/tasks`, { title })).status, 201);
    }
  }
  const first = await owner.call("GET", `/v1/projects/${projectId}/tasks?limit=1`);
  t.equal(first.status, 200);
  const cursor = first.body.next_cursor as string;
  t.type(cursor, "string", "the first page has a next cursor");

  const next = await owner.call("GET", withCursor(`/v1/projects/${projectId}/tasks?limit=1`, cursor));
  t.equal(next.status, 200, "the list that issued the cursor reads it");
  t.not(next.body.data[0].id, first.body.data[0].id, "and answers the next page");
  t.equal((await owner.call("GET", withCursor(`/v1/projects/${projectId}/tasks?limit=2`, cursor))).status, 200, "a different limit is the same list");

  for (const [what, path] of [
    ["another project's tasks", `/v1/projects/${other.body.id}/tasks`],
    ["the same tasks under another filter", `/v1/projects/${projectId}/tasks?status=todo`],
    ["another operation", `/v1/notifications`],
  ] as const) {
    const refused = await owner.call("GET", withCursor(path, cursor));
    t.equal(refused.status, 400, `${what}: 400`);
    t.equal(refused.body?.code, "invalid_cursor", `${what}: invalid_cursor`);
  }

  const filtered = await owner.call("GET", `/v1/projects/${projectId}/tasks?status=todo&limit=1`);
  const filteredNext = await owner.call("GET", withCursor(`/v1/projects/${projectId}/tasks?limit=1&status=todo`, filtered.body.next_cursor));
  t.equal(filteredNext.status, 200, "a filtered list reads its own cursor whatever the order of the query");
});

forEachDialectConfig(t, "an unbound cursor (as lists issued before binding) is still read, as the same position", async (t, config) => {
  const { client } = await startProjectsServer(t, config);
  const { owner, projectId } = await projectFixture(client, {});
  for (const title of ["one", "two", "three"]) t.equal((await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title })).status, 201);
  const first = await owner.call("GET", `/v1/projects/${projectId}/tasks?limit=1`);
  const last = first.body.data[0] as { rank: string; id: string };
  // The key of the tasks list is (rank, id) (core/projects/TaskQueries.ts): the cursor as the core issues it.
  const unbound = encodeCursor([last.rank, last.id]);
  t.not(unbound, first.body.next_cursor, "the answered cursor is bound");
  const viaUnbound = await owner.call("GET", withCursor(`/v1/projects/${projectId}/tasks?limit=1`, unbound));
  const viaBound = await owner.call("GET", withCursor(`/v1/projects/${projectId}/tasks?limit=1`, first.body.next_cursor));
  t.equal(viaUnbound.status, 200);
  t.same(viaUnbound.body.data, viaBound.body.data, "the unbound cursor reads the same next page");
  t.equal(viaUnbound.body.next_cursor, viaBound.body.next_cursor, "and the page answers a bound cursor");
});
