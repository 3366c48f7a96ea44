/**
 * Bounded work per request whatever the caller's membership count (security audit, second round,
 * F2): a user who sees more projects than a statement may bind (SQLite 32,766, Postgres 65,535
 * parameters) still gets 200 from search, the notification list, the unread count and the
 * activity feed, with only what it may see. Here another tenant makes the user (accepting its invitation) a co-owner of a
 * workspace of 33,000 (SQLite) or 66,000 (Postgres) projects (inserted in one statement, as the
 * audit's scale.mjs seeded them). In the same workspace, the user then holds a project
 * membership in each seeded project: its demotion revokes only the share links beyond its share
 * right, and its export completes with only what it may see - SQLite and Postgres; its demotion
 * to guest and removal lower, revoke, audit and version every one of those memberships (SQLite,
 * whose bind limit its 33,000 memberships pass).
 */
import t from "tap";
import { sql } from "kysely";
import { randomUUID } from "node:crypto";
import { inviteAndAccept, startProjectsServer, type Client } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { eventually } from "../support/eventually.js";

/** More than the dialect's bind-parameter limit (SQLite 32,766, Postgres 65,535). */
const seededProjects = { sqlite: 33_000, postgres: 66_000 } as const;

const ok = async (c: Client, path: string) => {
  const answer = await c.call("GET", path);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

forEachDialectConfig(t, "a user seeing more projects than a statement may bind gets 200 from search, notifications, unread count and activity", async (t, config, dialect) => {
  const { client, db, server } = await startProjectsServer(t, config);
  const attacker = await client();
  const victim = await client();
  const stranger = await client();
  const workspace = (await attacker.call("POST", "/v1/workspaces", { name: "Big" })).body;
  t.equal((await inviteAndAccept(attacker, workspace.id, victim, "owner")).member.role, "owner");
  const project = (await attacker.call("POST", `/v1/workspaces/${workspace.id}/projects`, { name: "Seen" })).body;
  const task = (await attacker.call("POST", `/v1/projects/${project.id}/tasks`, { title: "findme alpha" })).body;
  const comment = await attacker.call("POST", `/v1/tasks/${task.id}/comments`, { body: "findme note", mentions: [victim.userId], client_mutation_id: "m1" });
  t.equal(comment.status, 201);
  // Another tenant's task the victim must never see.
  const other = (await stranger.call("POST", "/v1/workspaces", { name: "Other" })).body;
  const hidden = (await stranger.call("POST", `/v1/workspaces/${other.id}/projects`, { name: "Hidden" })).body;
  t.equal((await stranger.call("POST", `/v1/projects/${hidden.id}/tasks`, { title: "findme hidden" })).status, 201);

  const seed =
    dialect === "postgres"
      ? sql`INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT gen_random_uuid()::text, ${workspace.id}, 'seed ' || g, ${attacker.userId}, now() FROM generate_series(1, ${seededProjects.postgres}) g`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${seededProjects.sqlite})
            INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
            SELECT lower(hex(randomblob(16))), ${workspace.id}, 'seed ' || i, ${attacker.userId}, ${new Date().toISOString()} FROM n`;
  await seed.execute(db.db);
  // SQLite's insert blocks this process (the server's too) for seconds: let the server close the
  // keep-alive sockets that timed out meanwhile before the client reuses one (else ECONNRESET).
  await new Promise((resolve) => setTimeout(resolve, 200));

  const search = await eventually(
    () => ok(victim, "/v1/search?q=findme"),
    (body) => body.data.length >= 2,
  );
  t.same(new Set(search.data.map((h: { project_id: string }) => h.project_id)), new Set([project.id]), "search: the task and the comment, nothing of another tenant");
  const notifications = await eventually(
    () => ok(victim, "/v1/notifications"),
    (body) => body.data.length >= 1,
  );
  t.equal(notifications.data.length, 1, "notifications: the mention");
  t.equal((await ok(victim, "/v1/notifications/unread-count")).count, 1, "unread count: the mention");
  const activity = await ok(victim, "/v1/activity?limit=50");
  t.ok(activity.data.length >= 1, "activity: the task's events");
  t.ok(activity.data.every((e: { project_id: string }) => e.project_id === project.id), "activity: nothing of another tenant");
  const scoped = await ok(victim, `/v1/activity?workspace_id=${workspace.id}&limit=50`);
  t.same(scoped.data.map((e: { id: string }) => e.id), activity.data.map((e: { id: string }) => e.id), "activity of the workspace: the same events");
  t.equal((await ok(victim, `/v1/search?q=findme&workspace_id=${workspace.id}`)).data.length, 2, "search within the workspace");

  await t.test("a demotion revokes only the share links beyond the user's share right, whatever its project memberships", async (t) => {
    // The victim administers every seeded project (so it keeps the share right there as a member), and no other.
    await sql`INSERT INTO pm_project_members (workspace_id, project_id, user_id, role, added_by, created_at)
      SELECT workspace_id, id, ${victim.userId}, 'admin', ${attacker.userId}, created_at FROM pm_projects
      WHERE workspace_id = ${workspace.id} AND name LIKE 'seed %'`.execute(db.db);
    const seeded = await db.db.selectFrom("pm_projects").select("id").where("workspace_id", "=", workspace.id).where("name", "=", "seed 1").executeTakeFirstOrThrow();
    const kept = await victim.call("POST", `/v1/projects/${seeded.id}/share-links`, {});
    const lost = await victim.call("POST", `/v1/projects/${project.id}/share-links`, {});
    t.same([kept.status, lost.status], [201, 201]);
    const demoted = await attacker.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: victim.userId, role: "member" });
    t.equal(demoted.status, 200, "the demotion succeeds");
    const links = await db.db.selectFrom("pm_share_links").select(["id", "revoked_reason"]).where("created_by", "=", victim.userId).execute();
    t.same(
      new Map(links.map((l) => [l.id, l.revoked_reason])),
      new Map([
        [kept.body.id, null],
        [lost.body.id, "role_changed"],
      ]),
      "the link of a project it no longer shares is revoked; the one it still administers is kept",
    );
  });

  await t.test("an export of a workspace with more visible projects than a statement may bind holds only what its requester may see", async (t) => {
    const seeded = await db.db.selectFrom("pm_projects").select("id").where("workspace_id", "=", workspace.id).where("name", "=", "seed 2").executeTakeFirstOrThrow();
    t.equal((await attacker.call("POST", `/v1/projects/${seeded.id}/tasks`, { title: "seeded task" })).status, 201);
    const requested = await victim.call("POST", `/v1/workspaces/${workspace.id}/exports`, undefined, { "Idempotency-Key": randomUUID() });
    t.equal(requested.status, 202);
    const done = await eventually(
      () => ok(victim, `/v1/exports/${requested.body.id}`),
      (body) => body.status !== "pending",
      60_000,
    );
    t.match(done, { status: "done", error: null }, "the export completes");
    const grant = await ok(victim, `/v1/exports/${requested.body.id}/download`);
    const file = await fetch(`${server.url}${grant.url}`, { method: grant.method, headers: grant.headers });
    t.equal(file.status, 200);
    const text = await file.text();
    const lines = text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    t.equal(lines.length, done.line_count);
    const count = (type: string) => lines.filter((l) => l.type === type).length;
    const visible = seededProjects[dialect];
    t.equal(count("project"), visible, "every seeded project (a member now: only those it is a member of)");
    t.equal(new Set(lines.filter((l) => l.type === "project").map((l) => l.id)).size, visible, "each once");
    t.ok(lines.filter((l) => l.type === "project").every((l) => l.role === "admin"), "with its project role");
    t.notOk(lines.some((l) => l.type === "project" && (l.id === project.id || l.id === hidden.id)), "not the project it no longer sees, nor another tenant's");
    t.equal(count("project_member"), visible, "its memberships");
    t.same(lines.filter((l) => l.type === "task").map((l) => l.title), ["seeded task"], "the tasks of the projects it sees only");
    t.notOk(text.includes("findme"), "nothing of the hidden projects");
  });

  // On SQLite only: its 33,000 memberships pass its bind limit (32,766), so any statement binding per
  // membership fails there, and the statements are the same on Postgres (Kysely builders, bounded
  // binds per chunk; membership-event-versions.test.ts counts them on both). On Postgres the same
  // 66,000 took about 10 s, most of it the relay delivering the 132,000 events.
  if (dialect === "sqlite") await t.test("a demotion to guest and a removal of more project memberships than a statement may bind lower, revoke and version each one", async (t) => {
    // The victim (now a member) still administers every seeded project.
    const held = seededProjects[dialect];
    const version = sql`json_extract(event, '$.aggregate_version')`;
    const aggregate = sql`json_extract(event, '$.aggregate_id')`;
    /** The victim's project membership events of `type` in the outbox, by version. */
    const versions = async (type: string) =>
      (
        await sql<{ v: number; n: number | string }>`SELECT ${version} AS v, count(*) AS n FROM outbox
          WHERE tenant_id = ${workspace.id} AND type = ${type} AND ${aggregate} LIKE ${`project:%:member:${victim.userId}`} GROUP BY 1 ORDER BY 1`.execute(db.db)
      ).rows.map((r) => [Number(r.v), Number(r.n)]);
    const audited = async (action: string) =>
      Number(
        (
          await db.db
            .selectFrom("pm_membership_audit")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("workspace_id", "=", workspace.id)
            .where("user_id", "=", victim.userId)
            .where("action", "=", action)
            .where("project_id", "is not", null)
            .executeTakeFirstOrThrow()
        ).n,
      );

    const demoted = await attacker.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: victim.userId, role: "guest", reason: "contract ended" });
    t.equal(demoted.status, 200, "the demotion to guest succeeds");
    const roles = await db.db
      .selectFrom("pm_project_members")
      .select(["role", (eb) => eb.fn.countAll().as("n")])
      .where("workspace_id", "=", workspace.id)
      .where("user_id", "=", victim.userId)
      .groupBy("role")
      .execute();
    t.same(roles.map((r) => [r.role, Number(r.n)]), [["contributor", held]], "every project-admin membership lowered to contributor");
    t.equal(await audited("project_member.added"), held, "each lowering audited");
    t.same(await versions("MembershipGranted"), [[1, held]], "each lowering's event at its membership's first version");

    const removed = await attacker.call("DELETE", `/v1/workspaces/${workspace.id}/members/${victim.userId}`);
    t.equal(removed.status, 204, "the removal succeeds");
    const left = await db.db.selectFrom("pm_project_members").select("project_id").where("user_id", "=", victim.userId).execute();
    t.same(left, [], "no project membership left");
    t.equal(await audited("project_member.removed"), held, "each removal audited");
    t.same(await versions("MembershipRevoked"), [[2, held]], "each removal's event at its membership's next version");
  });
});
