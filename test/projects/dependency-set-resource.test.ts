/**
 * docs/conventions.md, Lists, and its documented exception: a task's dependency set is a
 * resource, not a list. GET (and POST) /v1/tasks/:id/dependencies answer `{task_id, blocked_by,
 * blocking}` whole, with no `data` or `next_cursor`, and the OpenAPI document of both routes says
 * so and names the bound (maxEdgesPerTask edges in both arrays together) — SQLite and Postgres.
 * The bound itself is held by test/projects/bounded-collections.test.ts.
 */
import t from "tap";
import { maxEdgesPerTask } from "../../core/projects/Dependencies.js";
import { projectFixture, startProjectsServer } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, "a task's dependency set is a resource answered whole, with its bound documented", async (t, config) => {
  const { client, server } = await startProjectsServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const make = async (title: string) => (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title })).body.id as string;
  const [a, b, c] = [await make("A"), await make("B"), await make("C")];
  t.equal((await owner.call("POST", `/v1/tasks/${a}/dependencies`, { blocked_by_id: b })).status, 201);
  t.equal((await owner.call("POST", `/v1/tasks/${c}/dependencies`, { blocked_by_id: a })).status, 201);
  const read = await owner.call("GET", `/v1/tasks/${a}/dependencies`);
  t.same(read.body, { task_id: a, blocked_by: [b], blocking: [c] }, "both directions whole, no list envelope");

  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { description?: string; parameters?: Array<{ name: string }> }>>;
  };
  for (const method of ["get", "post"]) {
    const operation = document.paths["/v1/tasks/{id}/dependencies"]?.[method];
    t.match(operation?.description, /resource answered whole/, `${method}: described as a resource, not a paged list`);
    t.match(operation?.description, new RegExp(`at most ${maxEdgesPerTask} edges`), `${method}: names its bound`);
    t.notOk(operation?.parameters?.some((p) => p.name === "cursor" || p.name === "limit"), `${method}: takes no cursor or limit`);
  }
});
