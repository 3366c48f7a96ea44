/**
 * Spec rule 4 (moves): POST /v1/tasks/:id/move lands between two neighbour ids even when
 * hidden (deleted) tasks sit between them; many tasks may share one rank and the list order
 * stays total (rank, id), and a move between two tied tasks still lands between them; the
 * move checks visibility (404), role (403), anchors (422) and the trash (409) — SQLite and Postgres.
 */
import t from "tap";
import { randomUUID } from "node:crypto";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { Task } from "../../core/projects/model/Task.js";
import { rowCodec } from "../../adapters/sql/RowCodec.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { projectFixture, type Client } from "./support.js";
import { startSlice2aServer } from "./notifications-support.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { ProjectId, TaskId, WorkspaceId } from "../../core/projects/model/Ids.js";

const titles = async (c: Client, projectId: string): Promise<string[]> =>
  (await c.call("GET", `/v1/projects/${projectId}/tasks?limit=200`)).body.data.map((x: { title: string }) => x.title);

/** Inserts tasks that all share `rank` (as concurrent creates may), answering them in id order. */
const insertTied = async (db: SqlDatabase, owner: string, workspaceId: WorkspaceId, projectId: ProjectId, rank: string, n: number) => {
  const at = new Date();
  const ids = Array.from({ length: n }, () => TaskId.make(randomUUID())).sort();
  for (const [i, id] of ids.entries()) {
    const task = { id, workspaceId, projectId, title: `tied-${i}`, status: "todo" as const, assigneeId: null, rank, version: 1, deletedAt: null, createdBy: owner, createdAt: at, updatedAt: at };
    await db.db.insertInto("pm_tasks").values(rowCodec(Task, featuresFor(db)).toRow(task)).execute();
  }
  return ids;
};

forEachDialectConfig(t, `a move lands between two neighbour ids even when hidden tasks sit in between`, async (t, config, dialect) => {
  const { client } = await startSlice2aServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const ids: Record<string, string> = {};
  for (const title of ["A", "B", "C", "D", "E"]) ids[title] = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title })).body.id;
  t.equal((await owner.call("DELETE", `/v1/tasks/${ids.C}`)).status, 200, "C goes to the trash (hidden from the list)");
  const moved = await owner.call("POST", `/v1/tasks/${ids.E}/move`, { before_id: ids.B, after_id: ids.D });
  t.equal(moved.status, 200);
  t.equal(moved.body.version, 2, "a move is a versioned change");
  t.equal(moved.headers.get("etag"), '"2"');
  t.same(await titles(owner, projectId), ["A", "B", "E", "D"], "E sits between B and D");
  const before = await owner.call("POST", `/v1/tasks/${ids.D}/move`, { after_id: ids.B });
  t.equal(before.status, 200, "after_id alone places the task right before it");
  t.same(await titles(owner, projectId), ["A", "D", "B", "E"]);
  const first = await owner.call("POST", `/v1/tasks/${ids.E}/move`, { after_id: ids.A });
  t.equal(first.status, 200);
  t.same(await titles(owner, projectId), ["E", "A", "D", "B"], "before the first task");
  t.equal((await owner.call("POST", `/v1/tasks/${ids.A}/move`, { before_id: ids.B, after_id: ids.D })).status, 422, "after_id must come after before_id");
  t.equal((await owner.call("POST", `/v1/tasks/${ids.A}/move`, {})).status, 422, "a neighbour is required");
  t.equal((await owner.call("POST", `/v1/tasks/${ids.A}/move`, { before_id: ids.A })).status, 422, "not itself");
});

forEachDialectConfig(t, `many tasks may share one rank, the order stays total, and a move between tied tasks lands between them`, async (t, config, dialect) => {
  const { client, db } = await startSlice2aServer(t, config);
  const { owner, workspaceId, projectId } = await projectFixture(client);
  const tied = await insertTied(db, owner.userId, WorkspaceId.make(workspaceId), ProjectId.make(projectId), "V", 6);
  t.same(await titles(owner, projectId), tied.map((_, i) => `tied-${i}`), "ties are ordered by id");
  const pages: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: { title: string }[]; next_cursor: string | null } } = await owner.call(
      "GET",
      `/v1/projects/${projectId}/tasks?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`,
    );
    pages.push(...page.body.data.map((x) => x.title));
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  t.same(pages, tied.map((_, i) => `tied-${i}`), "keyset pages through a tie lose and repeat nothing");
  const moved = await owner.call("POST", `/v1/tasks/${tied[5]}/move`, { before_id: tied[1], after_id: tied[2] });
  t.equal(moved.status, 200);
  t.same(await titles(owner, projectId), ["tied-0", "tied-1", "tied-5", "tied-2", "tied-3", "tied-4"], "between the two tied neighbours");
  const moved2 = await owner.call("POST", `/v1/tasks/${tied[0]}/move`, { after_id: tied[3] });
  t.equal(moved2.status, 200);
  t.same(await titles(owner, projectId), ["tied-1", "tied-5", "tied-2", "tied-0", "tied-3", "tied-4"]);
  const jobs = await db.db.selectFrom("jobs").select("id").where("kind", "=", "projects.rank_rebalance").execute();
  t.ok(jobs.length >= 1, "a move into a tie schedules a rank rebalance");
});

forEachDialectConfig(t, `a move checks visibility, role, anchors and the trash`, async (t, config, dialect) => {
  const { client } = await startSlice2aServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(client, {
    reader: { workspace: "member", project: "viewer" },
    guest: { workspace: "guest" },
  });
  const a = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "A" })).body.id;
  const b = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "B" })).body.id;
  const other = (await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Other" })).body.id;
  const foreign = (await owner.call("POST", `/v1/projects/${other}/tasks`, { title: "F" })).body.id;
  t.equal((await clients.reader!.call("POST", `/v1/tasks/${a}/move`, { before_id: b })).status, 403, "a viewer may not move");
  t.equal((await clients.guest!.call("POST", `/v1/tasks/${a}/move`, { before_id: b })).status, 404, "an unshared guest sees nothing");
  t.equal((await owner.call("POST", `/v1/tasks/${a}/move`, { before_id: foreign })).status, 422, "an anchor of another project");
  await owner.call("DELETE", `/v1/tasks/${a}`);
  const trashed = await owner.call("POST", `/v1/tasks/${a}/move`, { before_id: b });
  t.equal(trashed.status, 409);
  t.equal(trashed.body.code, "task_deleted");
});
