/**
 * Task dependencies (issue 3 should-have: "blocked-by; a cycle answers 409"): edges within one
 * project, direct and transitive cycles refused with 409 dependency_cycle, idempotent add and
 * remove, and two concurrent opposite edges never both land (raced over HTTP; on Postgres with
 * parallel connections) — SQLite and Postgres.
 */
import t from "tap";
import { startFilesServer } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, `blocked-by dependencies refuse cycles with 409`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, { reader: { workspace: "member", project: "viewer" } });
  const make = async (title: string) => (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title })).body.id as string;
  const [a, b, c] = [await make("A"), await make("B"), await make("C")];
  const block = (task: string, by: string, who = owner) => who.call("POST", `/v1/tasks/${task}/dependencies`, { blocked_by_id: by });
  const ab = await block(a, b);
  t.equal(ab.status, 201);
  t.same(ab.body, { task_id: a, blocked_by: [b], blocking: [] });
  t.equal((await block(a, b)).status, 200, "adding again is harmless");
  t.equal((await block(b, c)).status, 201);
  const direct = await block(b, a);
  t.equal(direct.status, 409);
  t.equal(direct.body.code, "dependency_cycle");
  t.equal((await block(c, a)).body.code, "dependency_cycle", "a transitive cycle is refused too");
  t.equal((await block(a, a)).body.code, "dependency_cycle", "a task cannot block itself");
  t.equal((await block(a, c)).status, 201, "a diamond is not a cycle");
  t.same((await clients.reader!.call("GET", `/v1/tasks/${c}/dependencies`)).body, { task_id: c, blocked_by: [], blocking: [a, b].sort() });
  t.equal((await block(c, a, clients.reader!)).status, 403, "a viewer cannot edit dependencies");

  const other = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Elsewhere" });
  const elsewhere = (await owner.call("POST", `/v1/projects/${other.body.id}/tasks`, { title: "X" })).body.id;
  t.equal((await block(a, elsewhere)).status, 422, "a task of another project cannot block");
  const outsider = await host.client();
  t.equal((await outsider.call("GET", `/v1/tasks/${a}/dependencies`)).status, 404);

  t.equal((await owner.call("DELETE", `/v1/tasks/${b}/dependencies/${c}`)).status, 204);
  t.equal((await owner.call("DELETE", `/v1/tasks/${b}/dependencies/${c}`)).status, 204, "removing is idempotent");
  t.equal((await block(c, b)).status, 201, "with the edge gone, the reverse edge is fine");
});

forEachDialectConfig(t, `two concurrent opposite edges never both land`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  for (let round = 0; round < 5; round++) {
    const a = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: `A${round}` })).body.id;
    const b = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: `B${round}` })).body.id;
    const results = await Promise.all([
      owner.call("POST", `/v1/tasks/${a}/dependencies`, { blocked_by_id: b }),
      owner.call("POST", `/v1/tasks/${b}/dependencies`, { blocked_by_id: a }),
    ]);
    t.same(results.map((r) => r.status).sort(), [201, 409], `round ${round}: exactly one edge lands`);
    const rows = await host.db.db.selectFrom("pm_task_dependencies").selectAll().where("task_id", "in", [a, b]).execute();
    t.equal(rows.length, 1);
  }
});

/**
 * docs/decisions.md ("409 task_deleted for a task in trash"; dependencies: "same project only"):
 * a task in the trash takes part in no new dependency, on either end. A blocker in the trash
 * would hold a live task back by something no list shows.
 */
forEachDialectConfig(t, `a task in the trash neither gets nor gives a new dependency (409 task_deleted)`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const make = async (title: string) => (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title })).body.id as string;
  const [live, trashed] = [await make("Live"), await make("Trashed")];
  t.equal((await owner.call("DELETE", `/v1/tasks/${trashed}`)).status, 200);
  const byTrashed = await owner.call("POST", `/v1/tasks/${live}/dependencies`, { blocked_by_id: trashed });
  t.equal(byTrashed.status, 409, "a trashed task cannot block a live one");
  t.equal(byTrashed.body.code, "task_deleted");
  const ofTrashed = await owner.call("POST", `/v1/tasks/${trashed}/dependencies`, { blocked_by_id: live });
  t.equal(ofTrashed.body.code, "task_deleted", "nor be blocked (as before)");
  t.same((await owner.call("GET", `/v1/tasks/${live}/dependencies`)).body, { task_id: live, blocked_by: [], blocking: [] });
});
