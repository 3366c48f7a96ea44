/**
 * The activity feed's plans (spec rule 6: newest first, keyset pages). A page of listed projects
 * seeks each project's events through pm_task_events_feed, whatever the share of the table one
 * project holds; a user who sees more projects than a read lists walks each of their workspaces
 * through pm_task_events_workspace_feed, never another tenant's events. With the index
 * pm_task_events_by_time (projects migration 20, dropped by 21), Postgres walked it for the page
 * of a project holding most events, reading every other project's newer events first, and the
 * whole feed of such a user walked every tenant's events.
 */
import t from "tap";
import { sql } from "kysely";
import { forEachDialectConfig } from "../hosts/support.js";
import { measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { inviteAndAccept, startProjectsServer, type Client } from "./support.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { Dialect } from "../support/databases.js";

/** Events of the busy project (a day old) and of the other project (newer than every other event: they end an hour from now). */
const busyEvents = 20_000;
const newerEvents = 2_000;
const page = 50;

/** Inserts `count` events of `task`, one millisecond apart, ending `endsAgoMs` before now. */
const seedEvents = async (db: SqlDatabase, dialect: Dialect, task: { id: string; project_id: string; workspace_id: string }, actor: string, count: number, endsAgoMs: number) => {
  const start = Date.now() - endsAgoMs - count;
  const statement =
    dialect === "postgres"
      ? sql`INSERT INTO pm_task_events (id, workspace_id, project_id, task_id, actor_id, kind, data, created_at)
            SELECT gen_random_uuid()::text, ${task.workspace_id}, ${task.project_id}, ${task.id}, ${actor}, 'task.updated', '{}'::jsonb,
                   to_timestamp(${start}::bigint / 1000.0) + i * interval '1 millisecond'
            FROM generate_series(1, ${count}::int) AS i`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
            INSERT INTO pm_task_events (id, workspace_id, project_id, task_id, actor_id, kind, data, created_at)
            SELECT lower(hex(randomblob(16))), ${task.workspace_id}, ${task.project_id}, ${task.id}, ${actor}, 'task.updated', '{}',
                   strftime('%Y-%m-%dT%H:%M:%fZ', (${start} + i) / 1000.0, 'unixepoch')
            FROM n`;
  await statement.execute(db.db);
};

/** The events a GET of the feed read per statement: Postgres' measured rows, SQLite's plan lines. */
const feedStatements = async (db: SqlDatabase, dialect: Dialect, get: () => Promise<unknown>) => {
  const touchesEvents = (text: string) => text.includes("pm_task_events");
  if (dialect === "postgres") {
    const sent = await sentToPostgres(touchesEvents, get);
    return Promise.all(sent.map(async (statement) => {
      const nodes = planNodes(await measuredPlan(db, statement));
      return { indexes: nodes.map((node) => node["Index Name"]).filter((name): name is string => typeof name === "string"), read: rowsRead(nodes[0]!, "pm_task_events") };
    }));
  }
  const { executed } = await capturePrepared(touchesEvents, get);
  return Promise.all([...executed].map(async ([text, parameters]) => {
    const details = await planDetails(db, text, parameters);
    return { indexes: details.flatMap((detail) => /USING (?:COVERING )?INDEX (\S+)/.exec(detail)?.[1] ?? []), read: undefined };
  }));
};

const activity = async (c: Client, path: string) => {
  const answer = await c.call("GET", path);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as { data: Array<{ project_id: string; created_at: string }> };
};

forEachDialectConfig(t, "the activity feed seeks each listed project's events, and walks only the caller's workspaces when they see more projects than a read lists", async (t, config, dialect) => {
  const { client, db } = await startProjectsServer(t, config);
  const owner = await client();
  const workspace = (await owner.call("POST", "/v1/workspaces", { name: "Feed" })).body;
  const busy = (await owner.call("POST", `/v1/workspaces/${workspace.id}/projects`, { name: "Busy" })).body;
  const other = (await owner.call("POST", `/v1/workspaces/${workspace.id}/projects`, { name: "Other" })).body;
  const busyTask = (await owner.call("POST", `/v1/projects/${busy.id}/tasks`, { title: "busy" })).body;
  const otherTask = (await owner.call("POST", `/v1/projects/${other.id}/tasks`, { title: "other" })).body;
  await seedEvents(db, dialect, busyTask, owner.userId, busyEvents, 86_400_000);
  await seedEvents(db, dialect, otherTask, owner.userId, newerEvents, -3_600_000);
  await sql`ANALYZE`.execute(db.db);

  // The busy project alone (a viewer of it only) and both projects (the owner): listed scopes.
  const viewer = await client();
  t.equal((await inviteAndAccept(owner, workspace.id, viewer, "member")).member.role, "member");
  t.equal((await owner.call("POST", `/v1/projects/${busy.id}/members`, { user_id: viewer.userId, role: "viewer" })).status, 201);
  for (const [who, c, expected] of [["a viewer of the busy project", viewer, busy.id], ["the owner of both projects", owner, other.id]] as const) {
    const plans = await feedStatements(db, dialect, async () => {
      const body = await activity(c, `/v1/activity?limit=${page}`);
      t.equal(body.data.length, page, `${who}: a full page`);
      t.ok(body.data.every((e) => e.project_id === expected), `${who}: the newest events come first`);
    });
    t.equal(plans.length, 1, `${who}: one statement`);
    for (const plan of plans) {
      t.ok(plan.indexes.includes("pm_task_events_feed"), `${who}: seeks pm_task_events_feed`, { plan });
      t.notOk(plan.indexes.includes("pm_task_events_by_time"), `${who}: never walks every project's events by time`, { plan });
      if (plan.read !== undefined) t.ok(plan.read <= 2 * (page + 1), `${who}: reads at most a page per project (${plan.read})`);
    }
  }

  // Another tenant's newer events, and a second workspace where the owner sees one project.
  const stranger = await client();
  const hidden = (await stranger.call("POST", "/v1/workspaces", { name: "Hidden" })).body;
  const hiddenProject = (await stranger.call("POST", `/v1/workspaces/${hidden.id}/projects`, { name: "Hidden" })).body;
  const hiddenTask = (await stranger.call("POST", `/v1/projects/${hiddenProject.id}/tasks`, { title: "hidden" })).body;
  await seedEvents(db, dialect, hiddenTask, stranger.userId, newerEvents, -7_200_000);
  const shared = (await stranger.call("POST", "/v1/workspaces", { name: "Shared" })).body;
  t.equal((await inviteAndAccept(stranger, shared.id, owner, "member")).member.role, "member");
  const sharedProject = (await stranger.call("POST", `/v1/workspaces/${shared.id}/projects`, { name: "Shared" })).body;
  t.equal((await stranger.call("POST", `/v1/projects/${sharedProject.id}/members`, { user_id: owner.userId, role: "viewer" })).status, 201);
  const sharedTask = (await stranger.call("POST", `/v1/projects/${sharedProject.id}/tasks`, { title: "shared" })).body;
  await seedEvents(db, dialect, sharedTask, stranger.userId, 10, -10_800_000);
  // More projects than a read lists: the owner's feed walks their workspaces, kept by membership.
  const seed =
    dialect === "postgres"
      ? sql`INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT gen_random_uuid()::text, ${workspace.id}, 'seed ' || g, ${owner.userId}, now() FROM generate_series(1, 101) g`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
            INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT lower(hex(randomblob(16))), ${workspace.id}, 'seed ' || i, ${owner.userId}, ${new Date().toISOString()} FROM n`;
  await seed.execute(db.db);
  await sql`ANALYZE`.execute(db.db);
  for (const [what, path, projects, arms] of [
    ["every project", `/v1/activity?limit=${page}`, [sharedProject.id, other.id], 2],
    ["one workspace", `/v1/activity?limit=${page}&workspace_id=${workspace.id}`, [other.id], 1],
  ] as const) {
    const plans = await feedStatements(db, dialect, async () => {
      const body = await activity(owner, path);
      t.equal(body.data.length, page, `${what}: a full page`);
      const expected = (projects as ReadonlyArray<string>).length === 2 ? [...Array(10).fill(sharedProject.id), ...Array(page - 10).fill(other.id)] : Array(page).fill(other.id);
      t.same(body.data.map((e) => e.project_id), expected, `${what}: the newest events the owner may see, newest first, none of another tenant`);
    });
    t.equal(plans.length, 1, `${what}: one statement of events`);
    t.ok(plans[0]!.indexes.includes("pm_task_events_workspace_feed"), `${what}: walks pm_task_events_workspace_feed`, { plans });
    if (plans[0]!.read !== undefined) t.ok(plans[0]!.read <= arms * (page + 1), `${what}: reads at most a page per workspace (${plans[0]!.read}), none of another tenant's newer events`);
  }
});
