/**
 * What the project-management scenarios share: a user with a token, a workspace and a project
 * made through the HTTP API, tasks bulk-inserted in setup, and the SQL the task
 * adapters issue (SqlTasksRepository, SqlOutbox), per dialect, for the raw baselines.
 */
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { rankBetween } from "../../core/projects/Rank.js";
import { Task } from "../../core/projects/model/Task.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { rowCodec } from "../../adapters/sql/RowCodec.js";
import { numbered } from "../RawStatements.js";
import type { RawDatabase } from "../RawDatabase.js";
import type { BenchTarget } from "../Scenario.js";
import { ProjectId, TaskId, WorkspaceId } from "../../core/projects/model/Ids.js";

/** A user who owns a workspace and administers one project in it. */
export interface ProjectOwner {
  readonly userId: string;
  readonly token: string;
  readonly workspaceId: string;
  readonly projectId: string;
}

/** Calls the server as `token` and answers the JSON body; anything but 2xx fails the setup. */
export const callJson = async (
  target: BenchTarget,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<any> => {
  const send = () =>
    fetch(`${target.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // A pooled keep-alive connection the server closed meanwhile (e.g. during a long seeding on a
  // busy machine) fails with "fetch failed" (ECONNRESET): a GET is safe to send once more.
  const response = await send().catch((error: unknown) => {
    if (method !== "GET" || !(error instanceof TypeError)) throw error;
    return send();
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`bench setup: ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text === "" ? undefined : JSON.parse(text);
};

/** Mints a token for a fresh user (valid for an hour, longer than any run). */
export const userToken = async (target: BenchTarget, userId: string = randomUUID()): Promise<{ userId: string; token: string }> => ({
  userId,
  token: await mintToken({ secret: target.jwtSecret, userId, ttlSeconds: 3600 }),
});

/** A fresh user, workspace and project, made over HTTP as a client would. */
export const projectOwner = async (target: BenchTarget, name: string): Promise<ProjectOwner> => {
  const { userId, token } = await userToken(target);
  const workspace = await callJson(target, token, "POST", "/v1/workspaces", { name: `${name} workspace` });
  const project = await callJson(target, token, "POST", `/v1/workspaces/${workspace.id}/projects`, { name: `${name} project` });
  return { userId, token, workspaceId: String(workspace.id), projectId: String(project.id) };
};

/**
 * Inserts `count` tasks (version 1, status todo, ranks in order) into the owner's project with
 * bulk inserts on the server's own database handle, as SqlTasksRepository.insertTask writes
 * them. Through the core each task would also queue an outbox event, and the in-process
 * worker would still be relaying that backlog while the load runs.
 */
export const insertTasks = async (target: BenchTarget, owner: ProjectOwner, count: number): Promise<ReadonlyArray<Task>> => {
  const database = target.server.core.database;
  const f = featuresFor(database);
  const at = new Date();
  const tasks: Task[] = [];
  let rank: string | null = null;
  for (let i = 0; i < count; i++) {
    rank = rankBetween(rank, null);
    tasks.push({
      id: TaskId.make(randomUUID()), workspaceId: WorkspaceId.make(owner.workspaceId), projectId: ProjectId.make(owner.projectId), title: `bench task ${i}`, status: "todo",
      assigneeId: null, rank, version: 1, deletedAt: null, createdBy: owner.userId, createdAt: at, updatedAt: at,
    });
  }
  // 12 parameters a row: 500 rows stay under both drivers' parameter limits.
  for (let from = 0; from < tasks.length; from += 500) {
    await database.db.insertInto("pm_tasks").values(tasks.slice(from, from + 500).map((task) => rowCodec(Task, f).toRow(task))).execute();
  }
  return tasks;
};

/** `?` placeholders on SQLite, `$n` on Postgres, for `count` parameters starting at `from`. */
const placeholders = (dialect: RawDatabase["dialect"], count: number, from = 1): string =>
  Array.from({ length: count }, (_, i) => (dialect === "sqlite" ? "?" : `$${from + i}`)).join(", ");

/** The statements the task adapters issue, as Kysely compiles them for `dialect`. */
export const taskSql = (dialect: RawDatabase["dialect"]) => ({
  /** Transactions.run's BEGIN (SQLite takes the write lock up front). */
  begin: dialect === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN",
  /** SqlTasksRepository.lastRank */
  lastRank: `select "rank" from "pm_tasks" where "project_id" = ${placeholders(dialect, 1)} order by "rank" desc limit ${placeholders(dialect, 1, 2)}`,
  /** SqlTasksRepository.insertTask */
  insertTask: `insert into "pm_tasks" ("id", "workspace_id", "project_id", "title", "status", "assignee_id", "rank", "version", "deleted_at", "created_by", "created_at", "updated_at") values (${placeholders(dialect, 12)})`,
  /** The project and the caller's roles: the access check of a creation (Access.ts, before its transaction). */
  projectAccess: numbered(
    dialect,
    `select "p".*, "wm"."role" as "workspace_role", "pm"."role" as "project_role" from "pm_projects" as "p" left join "pm_workspace_members" as "wm" on "wm"."workspace_id" = "p"."workspace_id" and "wm"."user_id" = ? left join "pm_project_members" as "pm" on "pm"."project_id" = "p"."id" and "pm"."user_id" = ? where "p"."id" = ?`,
  ),
  /** The task with its project and the caller's roles: the read and access check of an update, in its transaction. */
  findTask: numbered(
    dialect,
    `select "t".*, "p"."id" as "project__id", "p"."workspace_id" as "project__workspace_id", "p"."name" as "project__name", "p"."created_by" as "project__created_by", "p"."created_at" as "project__created_at", "wm"."role" as "workspace_role", "pm"."role" as "project_role" from "pm_tasks" as "t" inner join "pm_projects" as "p" on "p"."id" = "t"."project_id" left join "pm_workspace_members" as "wm" on "wm"."workspace_id" = "p"."workspace_id" and "wm"."user_id" = ? left join "pm_project_members" as "pm" on "pm"."project_id" = "p"."id" and "pm"."user_id" = ? where "t"."id" = ?`,
  ),
  /** SqlTasksRepository.updateTask: the conditional update. */
  updateTask: (() => {
    const p = (n: number): string => (dialect === "sqlite" ? "?" : `$${n}`);
    return `update "pm_tasks" set "title" = ${p(1)}, "status" = ${p(2)}, "assignee_id" = ${p(3)}, "rank" = ${p(4)}, "version" = ${p(5)}, "deleted_at" = ${p(6)}, "updated_at" = ${p(7)} where "id" = ${p(8)} and "version" = ${p(9)}`;
  })(),
  /** SqlTasksRepository.appendEvent */
  appendEvent: `insert into "pm_task_events" ("id", "workspace_id", "project_id", "task_id", "actor_id", "kind", "data", "created_at") values (${placeholders(dialect, 8)})`,
  /** SqlOutbox.append with one envelope. */
  appendOutbox: `insert into "outbox" ("id", "tenant_id", "type", "event", "status", "attempts", "next_attempt_at", "created_at") values (${placeholders(dialect, 8)})`,
});

/** A time as the dialect stores it (sqliteFeatures / postgresFeatures timeToDb). */
export const timeToDb = (dialect: RawDatabase["dialect"], date: Date): unknown => (dialect === "sqlite" ? date.toISOString() : date);

/** A workspace, an owner membership and a project inserted directly, for raw baselines. */
export const rawProject = async (db: RawDatabase): Promise<{ workspaceId: string; projectId: string; userId: string }> => {
  const ids = { workspaceId: randomUUID(), projectId: randomUUID(), userId: randomUUID() };
  const now = timeToDb(db.dialect, new Date());
  const statements: Array<[string, unknown[]]> = [
    [`insert into pm_workspaces (id, name, created_by, created_at) values (${placeholders(db.dialect, 4)})`, [ids.workspaceId, "raw bench", ids.userId, now]],
    [`insert into pm_workspace_members (workspace_id, user_id, role, created_at) values (${placeholders(db.dialect, 4)})`, [ids.workspaceId, ids.userId, "owner", now]],
    [`insert into pm_projects (id, workspace_id, name, created_by, created_at) values (${placeholders(db.dialect, 5)})`, [ids.projectId, ids.workspaceId, "raw bench", ids.userId, now]],
  ];
  for (const [text, values] of statements) {
    if (db.dialect === "sqlite") db.sqlite.prepare(text).run(...values);
    else await db.pool.query(text, values);
  }
  return ids;
};

/** The row values of one TaskEvent and its outbox envelope, shaped as recordTaskFact builds them. */
export const factRows = (
  dialect: RawDatabase["dialect"],
  input: { readonly task: Record<string, unknown>; readonly workspaceId: string; readonly projectId: string; readonly taskId: string; readonly actorId: string; readonly kind: "task.created" | "task.updated"; readonly version: number; readonly extra?: Record<string, unknown> },
): { event: unknown[]; outbox: unknown[] } => {
  const at = new Date();
  const id = randomUUID();
  const data = { kind: input.kind, project_id: input.projectId, task: input.task, ...input.extra };
  const envelope = {
    id,
    type: input.kind === "task.created" ? "TaskCreated" : "TaskChanged",
    schema_version: 1,
    tenant_id: input.workspaceId,
    aggregate_id: input.taskId,
    aggregate_version: input.version,
    occurred_at: at.toISOString(),
    actor_id: input.actorId,
    data,
  };
  const time = timeToDb(dialect, at);
  return {
    event: [id, input.workspaceId, input.projectId, input.taskId, input.actorId, input.kind, JSON.stringify(data), time],
    outbox: [id, input.workspaceId, envelope.type, JSON.stringify(envelope), "pending", 0, time, time],
  };
};
