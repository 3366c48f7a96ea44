/**
 * Spec rule 6: GET /v1/activity is ordered by (created_at, id), newest first, with an opaque
 * keyset cursor; pages are stable while new events arrive; events of projects the caller cannot
 * see are filtered in the query before the limit, so no page is short because of them —
 * SQLite and Postgres.
 */
import t from "tap";
import { projectFixture, startProjectsServer, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

interface Entry {
  id: string;
  project_id: string;
  created_at: string;
}

const pageOf = async (c: Client, query: string): Promise<{ data: Entry[]; next_cursor: string | null }> => {
  const answer = await c.call("GET", `/v1/activity?${query}`);
  if (answer.status !== 200) throw new Error(`activity: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

forEachDialectConfig(t, `activity pages are stable while events arrive and filtered before the limit`, async (t, config, dialect) => {
  const { client } = await startProjectsServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(client, { member: { workspace: "member", project: "contributor" } });
  const member = clients.member!;
  const hidden = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Hidden" });
  // Interleave visible and hidden events so a filter after the limit would give short pages.
  for (let i = 0; i < 6; i++) {
    await member.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Visible ${i}` });
    await owner.call("POST", `/v1/projects/${hidden.body.id}/tasks`, { title: `Hidden ${i}` });
    await owner.call("POST", `/v1/projects/${hidden.body.id}/tasks`, { title: `Hidden ${i}b` });
  }
  const first = await pageOf(member, "limit=2");
  t.equal(first.data.length, 2, "a full page although most events are hidden");
  t.ok(first.data.every((e) => e.project_id === projectId), "only visible projects");

  // New events arrive between pages: they sort before page one and never shift later pages.
  for (let i = 0; i < 3; i++) await member.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Late ${i}` });

  const seen = [...first.data];
  let cursor = first.next_cursor;
  while (cursor !== null) {
    const page = await pageOf(member, `limit=2&cursor=${cursor}`);
    t.ok(page.data.length === 2 || page.next_cursor === null, "no short page before the last");
    seen.push(...page.data);
    cursor = page.next_cursor;
  }
  t.equal(seen.length, 6, "exactly the six events that existed when paging began");
  t.equal(new Set(seen.map((e) => e.id)).size, 6, "no duplicates");
  t.ok(seen.every((e) => e.project_id === projectId));
  const keys = seen.map((e) => `${e.created_at}|${e.id}`);
  t.same(keys, [...keys].sort().reverse(), "newest first by (created_at, id)");

  const fresh = await pageOf(member, "limit=3");
  t.same(fresh.data.map((e) => e.id).length, 3);
  t.ok(fresh.data.every((e) => !seen.some((s) => s.id === e.id)), "the late events lead a fresh first page");

  const ownerFeed = await pageOf(owner, `workspace_id=${workspaceId}&limit=200`);
  t.equal(ownerFeed.data.length, 6 + 12 + 3, "the owner sees every project of its workspace");
  const bad = await member.call("GET", "/v1/activity?cursor=AAAA");
  t.equal(bad.status, 400);
  t.equal(bad.body.code, "invalid_cursor");
});
