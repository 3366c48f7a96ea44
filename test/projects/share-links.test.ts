/**
 * Spec rule 7 (share links): a project admin or contributor creates a read-only link whose
 * token is shown once and stored only as SHA-256; the token in `X-Share-Token` reads the
 * project and its live tasks, while a wrong, expired or revoked token answers 404; viewers and
 * commenters cannot create links (403) and another workspace's project answers 404; removing a
 * member revokes the links it created in the removal's own transaction (a failure inside the
 * removal keeps both the membership and the links); the token never reaches the server log —
 * SQLite and Postgres.
 */
import type { Config } from "../../hosts/Config.js";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import t from "tap";
import { Effect, Layer } from "effect";
import { sql } from "kysely";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { makeSqlOutbox } from "../../adapters/sql/SqlOutbox.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { addProjectMember, createProject, revokeProjectMembership } from "../../core/projects/Projects.js";
import { accessSharedProject, createShareLink } from "../../core/projects/ShareLinks.js";
import { addWorkspaceMember, createWorkspace, removeWorkspaceMember } from "../../core/projects/Workspaces.js";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { Outbox } from "../../ports/Outbox.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { forEachDialect } from "../support/databases.js";
import { forEachDialectConfig, hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import { newUser, projectFixture, projectsRuntime, type Answer, type Client } from "./support.js";

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

/** The project module with a captured log, and clients (as in support.ts, plus the public caller). */
const startServer = async (t: Parameters<typeof startReferenceServer>[0], config: Config) => {
  const { server, logText } = await startReferenceServer(t, config, { modules: [projectsModule] });
  const client = async (userId: string = randomUUID()): Promise<Client> => {
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    return {
      userId,
      call: async (method, path, body, headers = {}) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
      },
    };
  };
  /** The public access route, with no credentials but the share token. */
  const access = async (token: string | undefined): Promise<Answer> => {
    const response = await fetch(`${server.url}/v1/share-links/access`, { headers: token === undefined ? {} : { "X-Share-Token": token } });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
  };
  return { client, access, logText, db: server.core.database };
};

forEachDialectConfig(t, `share links: token once, hashed, read-only access, 403/404 rules, revocation with membership`, async (t, config, dialect) => {
  const { client, access, logText, db } = await startServer(t, config);
  const fixture = await projectFixture(client, {
    admin: { workspace: "member", project: "admin" },
    dev: { workspace: "member", project: "contributor" },
    viewer: { workspace: "member", project: "viewer" },
    commenter: { workspace: "member", project: "commenter" },
  });
  const { projectId, clients } = fixture;
  const { admin, dev, viewer, commenter } = clients;
  const task = await dev!.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Visible to the link" });
  t.equal(task.status, 201);
  const tokens: string[] = [];

  const created = await dev!.call("POST", `/v1/projects/${projectId}/share-links`, {});
  t.equal(created.status, 201, "a contributor creates a link");
  t.same(Object.keys(created.body).sort(), ["expires_at", "id", "token"]);
  t.equal(created.headers.get("cache-control"), "no-store");
  const token = created.body.token as string;
  tokens.push(token);
  t.match(token, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
  const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
  t.ok(days > 6.9 && days <= 7, "expires in 7 days by default");

  const row = await db.db.selectFrom("pm_share_links").selectAll().where("id", "=", created.body.id).executeTakeFirstOrThrow();
  t.equal(row.token_hash, sha256(token), "the row holds the token's SHA-256");
  t.notOk(Object.values(row).some((v) => String(v).includes(token)), "and no column holds the token itself");

  const read = await access(token);
  t.equal(read.status, 200, "the token reads the project");
  t.match(read.body, { project: { id: projectId, name: "Launch" }, tasks: { data: [{ id: task.body.id, title: "Visible to the link" }], next_cursor: null } });
  t.notOk("role" in read.body.project, "no caller role in the shared view");
  t.equal((await access(randomBytes(32).toString("base64url"))).status, 404, "a wrong token answers 404");
  t.equal((await access(token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"))).status, 404, "a one-character edit answers 404");
  t.equal((await access(undefined)).status, 404, "no token answers 404");

  for (const [name, c] of [["viewer", viewer!], ["commenter", commenter!]] as const) {
    t.equal((await c.call("POST", `/v1/projects/${projectId}/share-links`, {})).status, 403, `a ${name} cannot create links`);
  }
  t.equal((await dev!.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 31 * 86_400 })).status, 422, "at most 30 days");

  // Another workspace: its owner cannot learn this project or its links exist.
  const other = await projectFixture(client);
  t.equal((await other.owner.call("POST", `/v1/projects/${projectId}/share-links`, {})).status, 404, "another workspace's project answers 404");
  t.equal((await other.owner.call("GET", `/v1/projects/${projectId}/share-links`)).status, 404);
  t.equal((await other.owner.call("DELETE", `/v1/share-links/${created.body.id}`)).status, 404, "its link answers 404 too");

  const listed = await admin!.call("GET", `/v1/projects/${projectId}/share-links`);
  t.equal(listed.status, 200, "an admin lists the links");
  t.match(listed.body.data, [{ id: created.body.id, created_by: dev!.userId, revoked_at: null }]);
  t.notOk(JSON.stringify(listed.body).includes(token), "never with the token");
  t.equal((await dev!.call("GET", `/v1/projects/${projectId}/share-links`)).status, 403, "a contributor does not list");

  // Expired: moved into the past (still expiring after it was created).
  const short = await admin!.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 60 });
  tokens.push(short.body.token);
  t.equal((await access(short.body.token)).status, 200);
  const f = featuresFor(db);
  await db.db
    .updateTable("pm_share_links")
    .set({ created_at: f.timeToDb(new Date(Date.now() - 120_000)) as never, expires_at: f.timeToDb(new Date(Date.now() - 60_000)) as never })
    .where("id", "=", short.body.id)
    .execute();
  t.equal((await access(short.body.token)).status, 404, "an expired token answers 404");

  // Revoked by its creator (idempotent); a viewer may not revoke another's link.
  const third = await dev!.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 3600 });
  tokens.push(third.body.token);
  t.equal((await viewer!.call("DELETE", `/v1/share-links/${third.body.id}`)).status, 403, "a viewer cannot revoke another's link");
  t.equal((await dev!.call("DELETE", `/v1/share-links/${third.body.id}`)).status, 204, "the creator revokes");
  t.equal((await dev!.call("DELETE", `/v1/share-links/${third.body.id}`)).status, 204, "revoking again is idempotent");
  t.equal((await access(third.body.token)).status, 404, "a revoked token answers 404");

  // Removing the creator revokes its remaining links; the admin's own link is untouched.
  const admins = await admin!.call("POST", `/v1/projects/${projectId}/share-links`, {});
  tokens.push(admins.body.token);
  t.equal((await admin!.call("DELETE", `/v1/projects/${projectId}/members/${dev!.userId}`)).status, 204);
  t.equal((await access(token)).status, 404, "the removed member's token answers 404 right after the removal");
  t.equal((await access(admins.body.token)).status, 200, "other members' links keep working");
  const revoked = await db.db.selectFrom("pm_share_links").select(["id", "revoked_reason"]).where("created_by", "=", dev!.userId).orderBy("id").execute();
  t.same(
    revoked.map((r) => r.revoked_reason),
    ["membership_revoked", "revoked"],
    "its live link revoked as membership_revoked, the earlier revocation kept",
  );

  // Removing a workspace member revokes the links it created in the workspace.
  t.equal((await fixture.owner.call("DELETE", `/v1/workspaces/${fixture.workspaceId}/members/${admin!.userId}`)).status, 204);
  t.equal((await access(admins.body.token)).status, 404, "a removed workspace member's token answers 404");

  const log = logText();
  t.ok(log.includes("/v1/share-links/access"), "the access requests were logged");
  for (const secret of tokens) t.notOk(log.includes(secret), "no token appears in the server log");
});

/** An outbox that writes its row and then fails: everything before it must roll back too. */
const failingOutbox = (db: SqlDatabase) => {
  const real = makeSqlOutbox(db, featuresFor(db));
  return Layer.succeed(Outbox, { append: (events) => Effect.zipRight(real.append(events), Effect.dieMessage("outbox outage")) });
};

/** The core runtime of the module (its definition provides the share link repository), with any override. */
const runtimeWithLinks = (t: Parameters<typeof projectsRuntime>[0], db: SqlDatabase, extra?: Layer.Layer<never>) => projectsRuntime(t, db, extra);

const linkState = (db: SqlDatabase) =>
  db.db.selectFrom("pm_share_links").select(["id", "revoked_at", "revoked_reason"]).orderBy("id").execute();

t.test("a failure inside a membership removal keeps both the membership and the member's links", (t) =>
  forEachDialect(t, "atomic link revocation", async (t, db) => {
    const healthy = runtimeWithLinks(t, db);
    const broken = runtimeWithLinks(t, db, failingOutbox(db));
    const owner = newUser();
    const dev = newUser();
    const { workspace } = await healthy.run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await healthy.run(createProject(owner, workspace.id, { name: "Launch" }));
    await healthy.run(addWorkspaceMember(owner, workspace.id, { userId: dev.userId, role: "member" }));
    await healthy.run(addProjectMember(owner, project.id, { userId: dev.userId, role: "contributor" }));
    const { token } = await healthy.run(createShareLink(dev, project.id, {}));
    const before = await linkState(db);
    t.match(before, [{ revoked_at: null, revoked_reason: null }]);

    const projectRemoval = await broken.attempt(revokeProjectMembership(owner, project.id, { userId: dev.userId }));
    t.match(projectRemoval, { ok: false, defect: { message: "outbox outage" } }, "the project removal fails inside its transaction");
    const workspaceRemoval = await broken.attempt(removeWorkspaceMember(owner, workspace.id, { userId: dev.userId }));
    t.match(workspaceRemoval, { ok: false, defect: { message: "outbox outage" } }, "so does the workspace removal");
    t.ok(await healthy.run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, dev.userId))), "the project membership is kept");
    t.ok(await healthy.run(Effect.flatMap(WorkspacesRepository, (r) => r.findMember(workspace.id, dev.userId))), "the workspace membership is kept");
    t.same(await linkState(db), before, "and the link is still live");
    t.match(await healthy.attempt(accessSharedProject(token, { limit: 10 })), { ok: true, value: { project: { id: project.id } } }, "its token still reads");

    await healthy.run(revokeProjectMembership(owner, project.id, { userId: dev.userId }));
    t.match(await linkState(db), [{ revoked_reason: "membership_revoked" }], "a successful removal revokes it");
    t.equal(await healthy.run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, dev.userId))), null);
    t.match(await healthy.attempt(accessSharedProject(token, { limit: 10 })), { ok: false, error: { _tag: "NotFound" } });
  }),
);

t.test("the database refuses a link expiring before it was created, a duplicate hash and a cross-workspace project", (t) =>
  forEachDialect(t, "share link constraints", async (t, db) => {
    const { run } = runtimeWithLinks(t, db);
    const a = newUser();
    const b = newUser();
    const wa = (await run(createWorkspace(a, { name: "A" }))).workspace;
    const pa = (await run(createProject(a, wa.id, { name: "PA" }))).project;
    const wb = (await run(createWorkspace(b, { name: "B" }))).workspace;
    const f = featuresFor(db);
    const at = new Date();
    const row = {
      id: randomUUID(),
      workspace_id: wa.id,
      project_id: pa.id,
      created_by: a.userId,
      token_hash: sha256("x"),
      created_at: f.timeToDb(at),
      expires_at: f.timeToDb(new Date(at.getTime() + 1000)),
      revoked_at: null,
      revoked_reason: null,
    } as never as Record<string, unknown>;
    await db.db.insertInto("pm_share_links").values(row as never).execute();
    await t.rejects(db.db.insertInto("pm_share_links").values({ ...row, id: randomUUID() } as never).execute(), "token_hash is unique");
    await t.rejects(
      db.db.insertInto("pm_share_links").values({ ...row, id: randomUUID(), token_hash: sha256("y"), expires_at: row.created_at } as never).execute(),
      "expires_at must be after created_at",
    );
    await t.rejects(
      db.db.insertInto("pm_share_links").values({ ...row, id: randomUUID(), token_hash: sha256("z"), workspace_id: wb.id } as never).execute(),
      "a project of another workspace cannot be referenced",
    );
    await t.rejects(sql`UPDATE pm_share_links SET revoked_at = created_at`.execute(db.db), "a revocation carries its reason");
  }),
);

/**
 * States, project membership row: "share-token revocation is atomic with the removal". A link
 * created while its creator is being removed (from the project or from the workspace) never
 * outlives the removal: raced on real connections, every round ends with no live link of the
 * removed member.
 */
t.test("share-token revocation is atomic with the removal: a link created during the removal does not outlive it", (t) =>
  forEachDialect(t, "link creation races membership removal", async (t, db) => {
    const { run, attempt } = runtimeWithLinks(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const rounds = 12;
    let created = 0;
    for (let round = 0; round < rounds; round++) {
      const dev = newUser();
      await run(addWorkspaceMember(owner, workspace.id, { userId: dev.userId, role: "member" }));
      await run(addProjectMember(owner, project.id, { userId: dev.userId, role: "contributor" }));
      const removal =
        round % 2 === 0
          ? revokeProjectMembership(owner, project.id, { userId: dev.userId })
          : removeWorkspaceMember(owner, workspace.id, { userId: dev.userId });
      const [link] = await Promise.all([attempt(createShareLink(dev, project.id, {})), run(removal)]);
      if (link.ok) created += 1;
      const live = await db.db
        .selectFrom("pm_share_links")
        .select("id")
        .where("created_by", "=", dev.userId)
        .where("revoked_at", "is", null)
        .execute();
      t.same(live, [], `round ${round}: the removed member holds no live link`);
      if (link.ok) t.match(await attempt(accessSharedProject(link.value.token, { limit: 10 })), { ok: false }, `round ${round}: its token answers 404`);
    }
    t.comment(`${created} of ${rounds} links were created before the removal`);
  }),
);

/**
 * Spec (Endpoints, rule 1: "List endpoints use opaque keyset cursors unless a small bounded
 * collection is explicit"): a project's share links are never deleted, so their list grows
 * without bound; it was cut at the newest 200, and an admin could not reach (or revoke) an older
 * live link. It pages by the one cursor codec, newest first, like every list.
 */
forEachDialectConfig(t, `a project's share links are a keyset-paginated list: every link is reachable`, async (t, config) => {
  const { client } = await startServer(t, config);
  const { owner, projectId } = await projectFixture(client, {});
  const created: string[] = [];
  for (let i = 0; i < 3; i++) created.push((await owner.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 3600 })).body.id);
  const first = await owner.call("GET", `/v1/projects/${projectId}/share-links?limit=2`);
  t.equal(first.status, 200);
  t.same(first.body.data.map((l: { id: string }) => l.id), [created[2], created[1]], "the newest two first");
  t.type(first.body.next_cursor, "string", "a cursor to the rest");
  const second = await owner.call("GET", `/v1/projects/${projectId}/share-links?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
  t.same(second.body.data.map((l: { id: string }) => l.id), [created[0]], "the oldest link on the next page");
  t.equal(second.body.next_cursor, null, "the last page says so");
  const bad = await owner.call("GET", `/v1/projects/${projectId}/share-links?cursor=not-a-cursor`);
  t.equal(bad.status, 400);
  t.equal(bad.body.code, "invalid_cursor");
});

/**
 * Spec (What the service does: "without leaking workspace data"; docs/decisions.md: "the shared
 * view holds the project's name and its live tasks, no members or roles"): a token holder is
 * anonymous, so a shared task carries no member's identity (creator, assignee) and no tenant id,
 * as the shared project already carries none.
 */
forEachDialectConfig(t, `a shared task names no member and no workspace: the token holder sees the work, not the people`, async (t, config) => {
  const { client, access } = await startServer(t, config);
  const { owner, projectId, clients } = await projectFixture(client, { dev: { workspace: "member", project: "contributor" } });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Assigned work", assignee_id: clients.dev!.userId });
  t.equal(task.status, 201);
  const link = await owner.call("POST", `/v1/projects/${projectId}/share-links`, { expires_in_seconds: 3600 });
  const read = await access(link.body.token);
  t.equal(read.status, 200);
  const shared = read.body.tasks.data[0];
  t.match(shared, { id: task.body.id, title: "Assigned work", status: "todo" }, "the task's work is shown");
  for (const field of ["workspace_id", "created_by", "assignee_id"]) t.notOk(field in shared, `no ${field} in a shared task`);
  t.notOk(JSON.stringify(read.body).includes(clients.dev!.userId), "no member's id anywhere in the shared view");
  t.notOk(JSON.stringify(read.body).includes(owner.userId), "not even the owner's");
});
