/**
 * Workspace export as a job (issue 3: "request, poll status, download the result (JSON lines of
 * everything the caller may see)"): 202 with a pending export, 409 export_not_ready until the job
 * ran, then a download grant; a guest's export holds only its shared projects; nobody else sees
 * another member's export — SQLite and Postgres. Each page of an export's rows follows the
 * (project_id, id) order of its table's index: it reads about the rows it returns, however many
 * rows of its projects lie past its cursor.
 */
import t from "tap";
import { sql } from "kysely";
import { startFilesServer, uploadAttachment } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { measuredPlan, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { Effect, Layer, Stream } from "effect";
import { makeSqlExportsRepository } from "../../adapters/sql/projects/SqlExportsRepository.js";
import { runWorkspaceExport } from "../../core/projects/ExportJob.js";
import { requestExport } from "../../core/projects/Exports.js";
import { createProject } from "../../core/projects/Projects.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { createWorkspace } from "../../core/projects/Workspaces.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

const linesOf = (bytes: Buffer) => bytes.toString("utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);

forEachDialectConfig(t, `an export runs as a job and holds exactly what its requester may see`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, { guest: { workspace: "guest", project: "commenter" } });
  const guest = clients.guest!;
  const hidden = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Board only" });
  const shared = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Shared task" });
  const secret = await owner.call("POST", `/v1/projects/${hidden.body.id}/tasks`, { title: "Secret task" });
  await guest.call("POST", `/v1/tasks/${shared.body.id}/comments`, { body: "guest comment", client_mutation_id: "g1" });
  await owner.call("POST", `/v1/tasks/${secret.body.id}/comments`, { body: "board comment", client_mutation_id: "o1" });
  await uploadAttachment(host, owner, secret.body.id, new TextEncoder().encode("board minutes"), "minutes.txt");

  const requested = await guest.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  t.match(requested.body, { status: "pending", workspace_id: workspaceId, requested_by: guest.userId, size: null });
  t.equal(requested.headers.get("location"), `/v1/exports/${requested.body.id}`);
  const early = await guest.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(early.status, 409);
  t.equal(early.body.code, "export_not_ready");
  t.equal((await owner.call("GET", `/v1/exports/${requested.body.id}`)).status, 404, "another member's export is not visible, even to the owner");

  await host.runJobs();
  const done = await guest.call("GET", `/v1/exports/${requested.body.id}`);
  t.match(done.body, { status: "done", error: null });
  const grant = await guest.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(grant.status, 200);
  const file = await host.transfer(grant.body);
  t.equal(file.status, 200);
  t.equal(file.bytes.length, done.body.size);
  const lines = linesOf(file.bytes);
  t.equal(lines.length, done.body.line_count);
  t.same(lines[0], { type: "export", id: requested.body.id, workspace_id: workspaceId, requested_by: guest.userId, format: "jsonl", version: 1 });
  t.same(lines.filter((l) => l.type === "project").map((l) => l.id), [projectId], "a guest's export holds only its shared project");
  t.same(lines.filter((l) => l.type === "task").map((l) => l.title), ["Shared task"]);
  t.same(lines.filter((l) => l.type === "comment").map((l) => l.body), ["guest comment"]);
  t.equal(lines.filter((l) => l.type === "attachment").length, 0);
  t.notOk(file.bytes.toString().includes("Secret task") || file.bytes.toString().includes("board"), "nothing of the hidden project leaks");
  t.ok(lines.some((l) => l.type === "activity" && l.task_id === shared.body.id));

  const ownerExport = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  await host.runJobs();
  const ownerFile = await host.transfer((await owner.call("GET", `/v1/exports/${ownerExport.body.id}/download`)).body);
  const ownerLines = linesOf(ownerFile.bytes);
  t.same(ownerLines.filter((l) => l.type === "project").map((l) => l.name).sort(), ["Board only", "Launch"], "the owner sees every project");
  t.same(ownerLines.filter((l) => l.type === "task").map((l) => l.title).sort(), ["Secret task", "Shared task"]);
  t.same(ownerLines.filter((l) => l.type === "attachment").map((l) => l.filename), ["minutes.txt"]);
  t.ok(ownerLines.some((l) => l.type === "project_member" && l.user_id === guest.userId));
});

forEachDialectConfig(t, `outsiders cannot export; a requester removed before the job runs gets a failed export`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, clients } = await projectFixture(host.client, { leaver: { workspace: "member" } });
  const outsider = await host.client();
  t.equal((await outsider.call("POST", `/v1/workspaces/${workspaceId}/exports`)).status, 404);
  const requested = await clients.leaver!.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${clients.leaver!.userId}`)).status, 204);
  await host.runJobs();
  const row = await host.db.db.selectFrom("pm_exports").selectAll().where("id", "=", requested.body.id).executeTakeFirstOrThrow();
  t.equal(row.status, "failed");
  t.equal(row.size, null, "nothing was written for a requester without access");
  t.equal((await clients.leaver!.call("GET", `/v1/exports/${requested.body.id}`)).status, 404, "a former member no longer sees it");
});

forEachDialectConfig(t, `an export's download grant ends when its requester leaves the workspace (403 grant_revoked)`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, clients } = await projectFixture(host.client, { leaver: { workspace: "member" } });
  const leaver = clients.leaver!;
  const requested = await leaver.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);
  await host.runJobs();
  const grant = await leaver.call("GET", `/v1/exports/${requested.body.id}/download`);
  t.equal(grant.status, 200);
  t.equal((await host.transfer(grant.body)).status, 200, "the grant serves the export while its requester is a member");
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${leaver.userId}`)).status, 204);
  const refused = await host.transfer(grant.body);
  t.equal(refused.status, 403, "a former member's export grant is refused");
  t.match(JSON.parse(refused.bytes.toString("utf8")), { code: "grant_revoked" });
});

/** Rows of each kind in the big project: several pages of the export job (500). */
const bigRows = 3_000;
/** Rows of each kind in another tenant's project: most of each table, so a seek is the plan that reads least. */
const otherRows = 20_000;

forEachDialectConfig(t, `an export's page reads about the rows it returns, not every row of its projects past its cursor`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, workspaceId, projectId } = await projectFixture(host.client);
  const small = (await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Small" })).body;
  const task = (await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Big" })).body;
  const smallTask = (await owner.call("POST", `/v1/projects/${small.id}/tasks`, { title: "Small" })).body;
  t.equal((await owner.call("POST", `/v1/tasks/${smallTask.id}/comments`, { body: "small", client_mutation_id: "s1" })).status, 201);
  // Another tenant's rows too: the big project is a small part of each table, so a page read by
  // anything but its project's index reads more than it returns.
  const stranger = await host.client();
  const elsewhere = (await stranger.call("POST", "/v1/workspaces", { name: "Elsewhere" })).body;
  const hidden = (await stranger.call("POST", `/v1/workspaces/${elsewhere.id}/projects`, { name: "Hidden" })).body;
  const hiddenTask = (await stranger.call("POST", `/v1/projects/${hidden.id}/tasks`, { title: "Hidden" })).body;
  const [id, at, i] = dialect === "postgres" ? [sql`gen_random_uuid()::text`, sql`now()`, sql`i`] : [sql`lower(hex(randomblob(16)))`, sql`${new Date().toISOString()}`, sql`i`];
  for (const [ws, project, onTask, by, count] of [
    [workspaceId, projectId, task.id, owner.userId, bigRows],
    [elsewhere.id, hidden.id, hiddenTask.id, stranger.userId, otherRows],
  ] as const) {
    const [rows, series] =
      dialect === "postgres"
        ? [sql``, sql`generate_series(1, ${count}) AS i`]
        : [sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`, sql`n`];
    await sql`${rows} INSERT INTO pm_tasks (id, workspace_id, project_id, title, status, rank, version, created_by, created_at, updated_at)
      SELECT ${id}, ${ws}, ${project}, 'seeded ' || ${i}, 'todo', 'n' || ${i}, 1, ${by}, ${at}, ${at} FROM ${series}`.execute(host.db.db);
    await sql`${rows} INSERT INTO pm_comments (id, workspace_id, project_id, task_id, author_id, body, mentions, client_mutation_id, created_at)
      SELECT ${id}, ${ws}, ${project}, ${onTask}, ${by}, 'seeded', '[]', 'seed-' || ${i}, ${at} FROM ${series}`.execute(host.db.db);
    await sql`${rows} INSERT INTO pm_task_events (id, workspace_id, project_id, task_id, actor_id, kind, data, created_at)
      SELECT ${id}, ${ws}, ${project}, ${onTask}, ${by}, 'task.updated', '{}', ${at} FROM ${series}`.execute(host.db.db);
  }
  await sql`ANALYZE`.execute(host.db.db);
  const requested = await owner.call("POST", `/v1/workspaces/${workspaceId}/exports`);
  t.equal(requested.status, 202);

  const pageReads = (text: string) => /"?pm_(tasks|comments|task_events)"?/.test(text) && text.includes("limit");
  if (dialect === "postgres") {
    const sent = await sentToPostgres(pageReads, () => host.runJobs());
    t.ok(sent.length >= 9, `the pages of the three kinds (${sent.length} statements)`);
    for (const statement of sent) {
      const plan = await measuredPlan(host.db, statement);
      const table = /pm_(tasks|comments|task_events)/.exec(statement.text)![0];
      const read = rowsRead(plan, table);
      // Near a project's end Postgres may read its last rows and sort them rather than seek: at
      // most about two pages, never the thousands past the cursor.
      t.ok(read <= 2 * 501, `a page of ${table} reads at most about two pages of rows: ${read}`, { text: statement.text });
    }
  } else {
    const { executed } = await capturePrepared(pageReads, () => host.runJobs());
    t.ok(executed.size >= 3, `the pages of the three kinds (${executed.size} statements)`);
    for (const [text, parameters] of executed) {
      const details = await planDetails(host.db, text, parameters);
      t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), `no sort: the index gives the order (${details.join(" | ")})`);
      t.ok(details.some((detail) => /USING (COVERING )?INDEX \S+ \((workspace_id=\? AND )?project_id=\?/.test(detail)), `seeks the project's rows by (project_id, id) (${details.join(" | ")})`);
    }
  }
  const done = await owner.call("GET", `/v1/exports/${requested.body.id}`);
  t.match(done.body, { status: "done", error: null });
  const file = await host.transfer((await owner.call("GET", `/v1/exports/${requested.body.id}/download`)).body);
  const lines = linesOf(file.bytes);
  const count = (type: string) => lines.filter((l) => l.type === type).length;
  t.same([count("task"), count("comment"), count("activity") >= bigRows], [bigRows + 2, bigRows + 1, true], "every row once");
  t.equal(new Set(lines.filter((l) => l.type === "task").map((l) => l.id)).size, bigRows + 2, "no task twice");
});

/** Projects in the walk test: three pages of the export job's 500. */
const walkedProjects = 1_001;

t.test("an export walks its requester's visible projects once: each page of projects is read for every kind before the next", (t) =>
  forEachDialect(t, "one walk", async (t, db) => {
    const real = makeSqlExportsRepository(db);
    let walks = 0;
    const counting: ExportsRepository = { ...real, visibleProjects: (req) => Effect.suspend(() => ((walks += 1), real.visibleProjects(req))) };
    let text = "";
    const decoder = new TextDecoder();
    // Only `put` is called by the export job.
    const store = {
      put: (key: string, content: Stream.Stream<Uint8Array>) =>
        Stream.runForEach(content, (chunk) => Effect.sync(() => void (text += decoder.decode(chunk)))).pipe(Effect.as({ key, size: text.length, sha256: "" })),
    } as unknown as ObjectStore;
    const { run } = projectsRuntime(t, db, Layer.succeed(ExportsRepository, counting));
    const withStore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, ObjectStore, store);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const seed =
      db.dialect === "postgres"
        ? sql`INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
              SELECT gen_random_uuid()::text, ${workspace.id}, 'seed ' || g, ${owner.userId}, now() FROM generate_series(1, ${walkedProjects - 1}) g`
        : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${walkedProjects - 1})
              INSERT INTO pm_projects (id, workspace_id, name, created_by, created_at)
              SELECT lower(hex(randomblob(16))), ${workspace.id}, 'seed ' || i, ${owner.userId}, ${new Date().toISOString()} FROM n`;
    await seed.execute(db.db);
    const byId = db.db.selectFrom("pm_projects").select("id").where("workspace_id", "=", workspace.id);
    const first = await byId.orderBy("id").executeTakeFirstOrThrow();
    const last = await byId.orderBy("id", "desc").executeTakeFirstOrThrow();
    await run(createTask(owner, first.id, { title: "first" }));
    await run(createTask(owner, last.id, { title: "last" }));
    await run(createTask(owner, project.id, { title: "created" }));
    const requested = await run(withStore(requestExport(owner, workspace.id)));
    t.equal(await run(withStore(runWorkspaceExport(requested.id))), "done");

    t.equal(walks, 3, "three pages of visible projects, each read once for every kind");
    const lines = text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    const projectLines = lines.filter((l) => l.type === "project").map((l) => l.id as string);
    t.equal(new Set(projectLines).size, walkedProjects, "every project once");
    t.same(projectLines, [...projectLines].sort(), "in id order");
    const tasks = lines.flatMap((l, i) => (l.type === "task" ? [{ i, title: l.title, project: l.project_id }] : []));
    t.same(tasks.map((task) => task.title).sort(), ["created", "first", "last"], "every task once");
    t.ok(
      lines.every((l, i) => !("project_id" in l) || l.type === "project" || lines.findIndex((p) => p.type === "project" && p.id === l.project_id) < i),
      "every row after its project's line",
    );
    const lineOf = (match: (l: Record<string, any>) => boolean) => lines.findIndex(match);
    t.ok(
      lineOf((l) => l.type === "task" && l.title === "first") < lineOf((l) => l.type === "project" && l.id === last.id),
      "the first page's rows come before the last page's projects",
    );
  }),
);
