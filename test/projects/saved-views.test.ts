/**
 * Saved views (issue 3 should-have: "filters + sort, per user and project"): any project reader
 * saves views for themselves; names are unique per user and project; another user — even the
 * workspace owner — neither lists nor deletes them (404); filters and sort are validated.
 * `GET /v1/projects/:id/tasks?view=` applies a view: its filters (statuses, assignee or
 * unassigned, a custom field's value) in the query before the limit, its sort (rank,
 * created_at, updated_at, title, status; asc or desc) with id as the last key, so paging
 * through ties returns every task exactly once in order; a cursor only continues its own list
 * (400 otherwise); another user's or another project's view is 404 — SQLite and Postgres.
 */
import t from "tap";
import { sql } from "kysely";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { projectsMigration0008SavedViewIndexes } from "../../adapters/sql/projects/migrations/0008_saved_view_indexes.js";
import { type TapTest } from "../support/databases.js";
import { startFilesServer } from "../blob/filesHost.js";
import { projectFixture, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";

type Host = Awaited<ReturnType<typeof startFilesServer>>;

const indexNames = async (host: Host): Promise<string[]> => {
  const rows =
    host.db.dialect === "postgres"
      ? await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'pm_tasks'`.execute(host.db.db)
      : await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pm_tasks'`.execute(host.db.db);
  return rows.rows.map((r) => r.name);
};

interface Row {
  id: string;
  title: string;
  status: "todo" | "in_progress" | "done";
  rank: string;
  created_at: string;
  updated_at: string;
  assignee_id: string | null;
}

/** Every task of a list, page by page (`limit` per page), checking no page but the last is short. */
const walk = async (t: TapTest, who: Client, path: string, limit: number): Promise<Row[]> => {
  const seen: Row[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const answer = await who.call("GET", `${path}${path.includes("?") ? "&" : "?"}limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    seen.push(...answer.body.data);
    cursor = answer.body.next_cursor;
    if (cursor === null) return seen;
    t.ok(cursor.length <= 2048, "every cursor fits the codec's bound");
    t.equal(answer.body.data.length, limit, "no short page before the last");
  }
  throw new Error("too many pages");
};

const statusOrder = ["todo", "in_progress", "done"];
const byteCompare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order a view's sort promises, computed independently of the database. */
const expectedOrder = (rows: Row[], by: string, direction: string): string[] => {
  const key = (r: Row): Array<string | number> =>
    by === "status" ? [statusOrder.indexOf(r.status), r.rank] : [(r as unknown as Record<string, string>)[by]!];
  const sorted = [...rows].sort((a, b) => {
    const ka = [...key(a), a.id];
    const kb = [...key(b), b.id];
    for (let i = 0; i < ka.length; i++) {
      const c = typeof ka[i] === "number" ? (ka[i] as number) - (kb[i] as number) : byteCompare(ka[i] as string, kb[i] as string);
      if (c !== 0) return c;
    }
    return 0;
  });
  return (direction === "asc" ? sorted : sorted.reverse()).map((r) => r.id);
};

forEachDialectConfig(t, `saved views belong to one user and one project`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
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

/** A project of ten live tasks (one more in the trash) whose sort keys collide on purpose. */
const tiedProject = async (host: Host) => {
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, {
    dev: { workspace: "member", project: "contributor" },
    reader: { workspace: "guest", project: "viewer" },
  });
  const size = (await owner.call("POST", `/v1/projects/${projectId}/fields`, { name: "Size", type: "single_select", options: ["S", "M", "L"] })).body;
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) ids.push((await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: `Task ${i}` })).body.id);
  const sizes = ["M", "S", "M", null, "L", "M", null, "S", "M", "L"];
  for (const [i, value] of sizes.entries()) {
    if (value !== null) await owner.call("PUT", `/v1/tasks/${ids[i]}/fields/${size.id}`, { value });
  }
  await owner.call("PUT", `/v1/tasks/${ids[10]}/fields/${size.id}`, { value: "M" });
  t.equal((await owner.call("DELETE", `/v1/tasks/${ids[10]}`)).status, 200);
  // Small domains for every key, so every sort has ties that only the id breaks ("B" < "a" byte-wise).
  // The longest title, in three-byte characters, is too long for a cursor carrying it.
  const titles = ["b", "a", "b", "c", "a", "B", "a", "c", "b", "界".repeat(500)];
  const ranks = ["V", "V", "W", "V", "X", "W", "V", "X", "V", "W"];
  const statuses = ["todo", "in_progress", "done", "todo", "todo", "done", "in_progress", "todo", "done", "in_progress"] as const;
  const assignees = [clients.dev!.userId, null, clients.dev!.userId, owner.userId, null, clients.dev!.userId, null, owner.userId, clients.dev!.userId, null];
  const times = ["2026-01-01T10:00:00.000Z", "2026-01-02T10:00:00.000Z", "2026-01-03T10:00:00.000Z"];
  const f = featuresFor(host.db);
  const rows: Row[] = [];
  for (let i = 0; i < 10; i++) {
    const row: Row = {
      id: ids[i]!,
      title: titles[i]!,
      status: statuses[i]!,
      rank: ranks[i]!,
      created_at: times[i % 3]!,
      updated_at: times[(i * 2) % 3 === 0 ? 0 : 2]!,
      assignee_id: assignees[i]!,
    };
    // A done task gets there through in_progress, as the workflow (and the database) requires;
    // every write is a new version (projects migration 11).
    if (row.status === "done") {
      await host.db.db.updateTable("pm_tasks").set({ status: "in_progress", version: sql`version + 1` }).where("id", "=", row.id).execute();
    }
    await host.db.db
      .updateTable("pm_tasks")
      .set({
        version: sql`version + 1`,
        title: row.title,
        status: row.status,
        rank: row.rank,
        assignee_id: row.assignee_id,
        created_at: f.timeToDb(new Date(row.created_at)),
        updated_at: f.timeToDb(new Date(row.updated_at)),
      })
      .where("id", "=", row.id)
      .execute();
    rows.push(row);
  }
  return { owner, workspaceId, projectId, clients, size, rows, sizes, deletedId: ids[10]! };
};

forEachDialectConfig(t, `a view's sort pages through ties exactly once, in order, both directions`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  t.same(
    (await indexNames(host)).filter((n) => n.startsWith("pm_tasks_order_")).sort(),
    ["pm_tasks_order_created", "pm_tasks_order_title", "pm_tasks_order_updated"],
    "migration 8 adds an index for each sort key",
  );
  const { projectId, clients, rows } = await tiedProject(host);
  const reader = clients.reader!;
  for (const by of ["rank", "created_at", "updated_at", "title", "status"]) {
    for (const direction of ["asc", "desc"]) {
      const view = await reader.call("POST", `/v1/projects/${projectId}/views`, { name: `${by} ${direction}`, sort: { by, direction } });
      t.equal(view.status, 201);
      // Pages of 1 cut every tie (and end on the long title); pages of 3 end inside and across ties.
      const limit = direction === "asc" || by === "title" ? 1 : 3;
      const seen = await walk(t, reader, `/v1/projects/${projectId}/tasks?view=${view.body.id}`, limit);
      t.same(seen.map((r) => r.id), expectedOrder(rows, by, direction), `sorted by ${by} ${direction}, pages of ${limit}: every task once, in order`);
    }
  }
  const plain = await walk(t, reader, `/v1/projects/${projectId}/tasks`, 4);
  t.same(plain.map((r) => r.id), expectedOrder(rows, "rank", "asc"), "the plain list is still (rank, id)");
});

forEachDialectConfig(t, `a view's filters apply in the query before the limit; the view is the caller's own; a cursor continues only its list`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients, size, rows, sizes, deletedId } = await tiedProject(host);
  const dev = clients.dev!;
  const make = async (name: string, filters: unknown) => {
    const view = await dev.call("POST", `/v1/projects/${projectId}/views`, { name, filters });
    if (view.status !== 201) throw new Error(`view ${name}: ${view.status} ${JSON.stringify(view.body)}`);
    return view.body.id as string;
  };
  const ids = (pred: (r: Row, i: number) => boolean) => rows.filter(pred).map((r) => r.id);
  const inRankOrder = (selected: string[]) => expectedOrder(rows, "rank", "asc").filter((id) => selected.includes(id));
  const list = async (viewId: string, extra = "") => (await walk(t, dev, `/v1/projects/${projectId}/tasks?view=${viewId}${extra}`, 2)).map((r) => r.id);

  const active = await make("Active", { status: ["in_progress", "done"] });
  t.same(await list(active), inRankOrder(ids((r) => r.status !== "todo")), "status list");
  const mine = await make("Mine", { assignee_id: dev.userId });
  t.same(await list(mine), inRankOrder(ids((r) => r.assignee_id === dev.userId)), "assignee");
  const nobody = await make("Unassigned", { assignee_id: null });
  t.same(await list(nobody), inRankOrder(ids((r) => r.assignee_id === null)), "unassigned");
  const medium = await make("Medium", { field: { field_id: size.id, value: "M" } });
  const mediumIds = ids((_r, i) => sizes[i] === "M");
  t.same(await list(medium), inRankOrder(mediumIds), "a custom field's value (the trashed task with M is not listed)");
  t.notOk((await list(medium)).includes(deletedId));
  const both = await make("Mine and active", { status: ["in_progress", "done"], assignee_id: dev.userId, field: { field_id: size.id, value: "M" } });
  t.same(await list(both), inRankOrder(ids((r, i) => r.status !== "todo" && r.assignee_id === dev.userId && sizes[i] === "M")), "filters combine");
  t.same(await list(active, "&status=done"), inRankOrder(ids((r) => r.status === "done")), "status narrows the view (intersection)");
  t.same(await list(active, "&status=todo"), [], "a status outside the view's lists nothing");
  const sorted = await dev.call("POST", `/v1/projects/${projectId}/views`, { name: "Unassigned by title", filters: { assignee_id: null }, sort: { by: "title", direction: "desc" } });
  t.same(await list(sorted.body.id), expectedOrder(rows.filter((r) => r.assignee_id === null), "title", "desc"), "filter and sort together");

  const other = (await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Other" })).body;
  const foreign = (await owner.call("POST", `/v1/projects/${other.id}/fields`, { name: "Foreign", type: "number" })).body;
  const refused = await dev.call("POST", `/v1/projects/${projectId}/views`, { name: "Foreign", filters: { field: { field_id: foreign.id, value: 1 } } });
  t.equal(refused.status, 422, "a field of another project cannot be a filter");
  t.equal(
    (await dev.call("POST", `/v1/projects/${projectId}/views`, { name: "XL", filters: { field: { field_id: size.id, value: "XL" } } })).status,
    422,
    "the filter's value must be one the field accepts",
  );

  // A view is the caller's own, and a cursor only continues its own list.
  const asc = (await dev.call("POST", `/v1/projects/${projectId}/views`, { name: "Up", sort: { by: "title", direction: "asc" } })).body.id;
  const desc = (await dev.call("POST", `/v1/projects/${projectId}/views`, { name: "Down", sort: { by: "title", direction: "desc" } })).body.id;
  const page = async (query: string, who = dev) => who.call("GET", `/v1/projects/${projectId}/tasks?limit=2&${query}`);
  const fromAsc = (await page(`view=${asc}`)).body.next_cursor as string;
  const fromPlain = (await page("")).body.next_cursor as string;
  t.equal((await page(`view=${asc}&cursor=${fromAsc}`)).status, 200);
  for (const [query, why] of [
    [`view=${desc}&cursor=${fromAsc}`, "a cursor of another view"],
    [`view=${asc}&cursor=${fromPlain}`, "a cursor of the plain list"],
    [`cursor=${fromAsc}`, "a view's cursor on the plain list"],
    [`view=${asc}&cursor=${fromAsc.slice(0, -2)}xy`, "an edited cursor"],
  ] as const) {
    const answer = await page(query);
    t.equal(answer.status, 400, why);
    t.equal(answer.body.code, "invalid_cursor", why);
  }
  t.match((await page(`view=${desc}&cursor=${fromAsc}`)).body.detail, /belongs to another list/, "the problem says why (the route machinery refuses a cursor bound to another list)");

  t.equal((await page(`view=${asc}`, owner)).status, 404, "another user's view is 404, even for the workspace owner");
  t.equal((await page(`view=${asc}`, clients.reader!)).status, 404);
  const elsewhere = (await owner.call("POST", `/v1/projects/${other.id}/views`, { name: "Elsewhere" })).body.id;
  t.equal((await page(`view=${elsewhere}`, owner)).status, 404, "a view of another project is 404");
  t.equal((await page("view=00000000-0000-7000-8000-000000000000")).status, 404, "an unknown view is 404");
  const outsider = await host.client();
  t.equal((await page(`view=${asc}`, outsider)).status, 404, "an outsider gets 404 for the project");
  t.equal((await dev.call("DELETE", `/v1/views/${asc}`)).status, 204);
  t.equal((await page(`view=${asc}`)).status, 404, "a deleted view is 404");
});
