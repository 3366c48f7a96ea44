/**
 * The activity feed's plans (spec rule 6: newest first, keyset pages). A page of listed projects
 * seeks each project's events through pm_task_events_feed, whatever the share of the table one
 * project holds; only the walk of every project a user sees (more than a read may list) uses
 * pm_task_events_by_time, and the walk within one workspace pm_task_events_workspace_feed. With
 * pm_task_events_by_time a full index, Postgres walked it for the page of a project holding most
 * events, reading every other project's newer events first (projects migration 21).
 */
import t from "tap";
import { sql } from "kysely";
import { forEachDialectConfig } from "../hosts/support.js";
import { measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { startProjectsServer, type Client } from "./support.js";
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

forEachDialectConfig(t, "the activity feed seeks each listed project's events, and walks by time only for every project of a user", async (t, config, dialect) => {
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
  t.equal((await owner.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: viewer.userId, role: "member" })).status, 201);
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

  // More projects than a read lists: the owner's feed walks the events by time, kept by membership.
  const seed =
    dialect === "postgres"
      ? sql`INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT gen_random_uuid()::text, ${workspace.id}, 'seed ' || g, ${owner.userId}, now() FROM generate_series(1, 101) g`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
            INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT lower(hex(randomblob(16))), ${workspace.id}, 'seed ' || i, ${owner.userId}, ${new Date().toISOString()} FROM n`;
  await seed.execute(db.db);
  for (const [what, path, index] of [
    ["every project", `/v1/activity?limit=${page}`, "pm_task_events_by_time"],
    ["one workspace", `/v1/activity?limit=${page}&workspace_id=${workspace.id}`, "pm_task_events_workspace_feed"],
  ] as const) {
    const plans = await feedStatements(db, dialect, async () => {
      const body = await activity(owner, path);
      t.equal(body.data.length, page, `${what}: a full page`);
      t.ok(body.data.every((e) => e.project_id === other.id), `${what}: the newest events come first`);
    });
    t.equal(plans.length, 1, `${what}: one statement`);
    t.ok(plans[0]!.indexes.includes(index), `${what}: walks ${index}`, { plans });
    if (plans[0]!.read !== undefined) t.ok(plans[0]!.read <= page + 1, `${what}: reads one page (${plans[0]!.read})`);
  }
});
