/**
 * Saved views (issue 3 should-have: "filters + sort, per user and project"): any project reader
 * saves views for themselves; names are unique per user and project; another user — even the
 * workspace owner — neither lists nor deletes them (404); filters and sort are validated —
 * SQLite and Postgres.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { startFilesServer } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";

for (const dialect of dialects) {
  t.test(`saved views belong to one user and one project [${dialect}]`, async (t) => {
    const host = await startFilesServer(t, dialect);
    const { owner, projectId, clients } = await projectFixture(host.client, { reader: { workspace: "guest", project: "viewer" } });
    const reader = clients.reader!;
    const mine = await reader.call("POST", `/v1/projects/${projectId}/views`, {
      name: "My open work",
      filters: { status: ["todo", "in_progress"], assignee_id: reader.userId },
      sort: { by: "updated_at", direction: "desc" },
    });
    t.equal(mine.status, 201);
    t.match(mine.body, { name: "My open work", user_id: reader.userId, filters: { status: ["todo", "in_progress"] }, sort: { by: "updated_at", direction: "desc" } });
    const defaults = await reader.call("POST", `/v1/projects/${projectId}/views`, { name: "All" });
    t.same(defaults.body.sort, { by: "rank", direction: "asc" });
    t.equal((await reader.call("POST", `/v1/projects/${projectId}/views`, { name: "All" })).body.code, "saved_view_exists");
    t.equal((await owner.call("POST", `/v1/projects/${projectId}/views`, { name: "All" })).status, 201, "names are unique per user");
    t.equal((await reader.call("POST", `/v1/projects/${projectId}/views`, { name: "Bad", sort: { by: "secret", direction: "asc" } })).status, 422);
    t.equal((await reader.call("POST", `/v1/projects/${projectId}/views`, { name: "Bad", filters: { status: ["archived"] } })).status, 422);

    const listed = await reader.call("GET", `/v1/projects/${projectId}/views`);
    t.same(listed.body.data.map((v: { name: string }) => v.name), ["All", "My open work"], "only the caller's views");
    t.same((await owner.call("GET", `/v1/projects/${projectId}/views`)).body.data.map((v: { name: string }) => v.name), ["All"]);
    t.equal((await owner.call("DELETE", `/v1/views/${mine.body.id}`)).status, 404, "the workspace owner cannot delete another user's view");
    t.equal((await reader.call("DELETE", `/v1/views/${mine.body.id}`)).status, 204);
    t.equal((await reader.call("DELETE", `/v1/views/${mine.body.id}`)).status, 404);
    const outsider = await host.client();
    t.equal((await outsider.call("POST", `/v1/projects/${projectId}/views`, { name: "Peek" })).status, 404);
  });
}
