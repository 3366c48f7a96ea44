/**
 * The TasksRepository port over `pm_tasks` and the append-only `pm_task_events`. The
 * conditional update carries `AND version = ?`, so the database decides which of two racing
 * writers wins. Lists are keyset queries: the task list on (sort keys..., id) with its filters in
 * the WHERE clause (before the limit), the activity feed on (created_at, id).
 */
import { Effect } from "effect";
import { sql, type RawBuilder, type SelectQueryBuilder } from "kysely";
import { Task, TaskStatus } from "../../../core/projects/model/Task.js";
import { TaskEvent } from "../../../core/projects/model/TaskEvent.js";
import { Project } from "../../../core/projects/model/Project.js";
import { joinRoles, readRoles, roleColumns } from "./ProjectRoles.js";
import type { RankKey, TaskFilter, TaskOrder, TaskPosition, TasksRepository } from "../../../ports/projects/TasksRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { compiledInsert, compiledOnce, compiledPerListLength, compiledUpdateIfVersion, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { isListedScope } from "../../../ports/projects/ProjectScope.js";
import { projectScopeSql } from "./ProjectScopeSql.js";

/** Projects (or workspaces) merged per statement of the activity feed (SQLite allows 500 terms in a compound SELECT). */
const feedArmsPerStatement = 100;
/** Statements of one long feed in flight at once (a listed scope is at most one statement's worth; a user's workspaces may be more). */
const feedStatementsAtOnce = 4;

const chunked = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** Newest first by (created_at, id), as the feed's ORDER BY, for merging pages of several statements. */
const feedOrder = (f: DialectFeatures, a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): number => {
  const at = (row: Readonly<Record<string, unknown>>) => f.timeFromDb(row.created_at).getTime();
  const byTime = at(b) - at(a);
  if (byTime !== 0) return byTime;
  const [x, y] = [String(a.id), String(b.id)];
  return x < y ? 1 : x > y ? -1 : 0;
};

// Workflow order (todo, in_progress, done), not alphabetical, for sorting by status.
const statusPositionSql: RawBuilder<number> = sql<number>`CASE status ${sql.join(
  TaskStatus.literals.map((status, i) => sql`WHEN ${sql.lit(status)} THEN ${sql.lit(i)}`),
  sql` `,
)} END`;

/**
 * The ordered expressions of `order` (id last) and the values of `after` in the same shape.
 * Titles compare byte-wise on both dialects (COLLATE "C" on Postgres, SQLite's BINARY), like
 * ranks, so a list has one order everywhere and the index serves it.
 */
const orderTerms = (f: DialectFeatures, order: TaskOrder) => {
  const title = f.dialect === "postgres" ? sql`title COLLATE "C"` : sql`title`;
  const keys: ReadonlyArray<RawBuilder<unknown>> = {
    rank: [sql.ref("rank")],
    created_at: [sql.ref("created_at")],
    updated_at: [sql.ref("updated_at")],
    title: [title],
    status: [statusPositionSql, sql.ref("rank")],
  }[order.by];
  const valuesOf = (after: TaskPosition): ReadonlyArray<unknown> => {
    const [first = "", second = ""] = after.values;
    switch (order.by) {
      case "created_at":
      case "updated_at":
        return [f.timeToDb(new Date(first))];
      case "status":
        return [TaskStatus.literals.findIndex((s) => s === first), second];
      default:
        return [first];
    }
  };
  return { keys: [...keys, sql.ref("id")], valuesOf };
};

const positionOf = (after: RankKey | TaskPosition): TaskPosition => ("rank" in after ? { values: [after.rank], id: after.id } : after);

/** The filter's conditions as SQL (empty: no condition). */
const filterConditions = (f: DialectFeatures, filter: TaskFilter | undefined): RawBuilder<boolean>[] => {
  const conditions: RawBuilder<boolean>[] = [];
  if (filter === undefined) return conditions;
  // An empty status list is no status filter (the schema allows it; nothing would match otherwise).
  if (filter.statuses !== undefined && filter.statuses.length > 0) {
    conditions.push(sql<boolean>`status IN (${sql.join(filter.statuses.map((s) => sql`${s}`))})`);
  }
  if (filter.assignee !== undefined) {
    conditions.push(filter.assignee.id === null ? sql<boolean>`assignee_id IS NULL` : sql<boolean>`assignee_id = ${filter.assignee.id}`);
  }
  if (filter.field !== undefined) {
    const json = f.jsonToDb(filter.field.value);
    // Values are stored with JSON.stringify: equal text on SQLite, equal jsonb on Postgres.
    const value = f.dialect === "postgres" ? sql`CAST(${json} AS jsonb)` : sql`${json}`;
    conditions.push(
      sql<boolean>`EXISTS (SELECT 1 FROM pm_task_field_values v WHERE v.task_id = pm_tasks.id AND v.field_id = ${filter.field.fieldId} AND v.value = ${value})`,
    );
  }
  return conditions;
};

/** Builds the task repository over `db`. */
export const makeSqlTasksRepository = (db: SqlDatabase): TasksRepository => {
  const f = featuresFor(db);
  const tasks = rowCodec(Task, f);
  const events = rowCodec(TaskEvent, f);
  // The task's project is selected beside the task under prefixed names (both have id, workspace_id, ...).
  const projects = rowCodec(Project, f);
  const projectPrefix = "project__";
  // The queries of every task command (access read, conditional update, its event), compiled once.
  const selectTaskWithRoles = compiledOnce<{ taskId: string; userId: string }>((ex, p) =>
    joinRoles(ex.selectFrom("pm_tasks as t").innerJoin("pm_projects as p", "p.id", "t.project_id"), p("userId"))
      .selectAll("t")
      .select(projects.columns.map((column) => `p.${column} as ${projectPrefix}${column}`))
      .select(roleColumns)
      .where("t.id", "=", p("taskId")),
  );
  const conditionalUpdate = compiledUpdateIfVersion("pm_tasks", tasks, { key: ["id"], unchanging: ["workspace_id", "project_id", "created_by", "created_at"] });
  const insertEvent = compiledInsert("pm_task_events", events);
  const insertTask = compiledInsert("pm_tasks", tasks);
  // The activity feed: one project's page is a backward walk of pm_task_events_feed (project_id,
  // created_at, id), the row-value comparison seeking to the cursor instead of filtering every
  // newer row. Several projects: an IN list cannot walk the index in feed order, so the database
  // would read and sort every event of every visible project; instead each project's page is one
  // seek (at most `limit` rows) and the pages are merged by a UNION ALL. Compiled once per number
  // of projects (up to 8) and per cursor presence: the feed is the hottest read.
  // A user who sees more projects than a read lists (ProjectScope `visibleTo`): the same merge with
  // one arm per workspace of the user, each a backward walk of pm_task_events_workspace_feed
  // (workspace_id, created_at, id) keeping the rows the user may see (ProjectScopeSql's membership
  // probes), so a page reads the user's workspaces' events, never another tenant's.
  // SQLite sorts each arm of the merge again (a temporary B-tree per arm: it does not know a
  // subquery's rows come ordered), so there the arms carry only the keys (rowid, created_at, id)
  // and the page's whole rows are read by rowid after the merge (a 51-row page of five projects,
  // one busy: 103 -> 61 µs; docs/decisions.md). Postgres merges the ordered arms as they come
  // (Merge Append), with no sort.
  const keysFirst = db.dialect === "sqlite";
  const feedPage = (withCursor: boolean, arms: "project" | "workspace") =>
    compiledPerListLength<{ at: unknown; beforeId: string | undefined; limit: number; userId?: string }>((ex, p, ids) => {
      const keysOnly = keysFirst && ids.length > 1;
      const arm = (id: unknown) => {
        const from = ex.selectFrom("pm_task_events");
        let query: SelectQueryBuilder<any, "pm_task_events", any> = keysOnly ? from.select([sql.ref("rowid").as("rid"), "created_at", "id"]) : from.selectAll();
        query =
          arms === "project"
            ? query.where("project_id", "=", id)
            : query.where("workspace_id", "=", id).where(projectScopeSql("pm_task_events", { visibleTo: p("userId") }));
        if (withCursor) query = query.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(p("at"), p("beforeId"))));
        return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(p("limit"));
      };
      if (ids.length === 1) return arm(ids[0]);
      const [first, ...rest] = ids.map((id, i) => ex.selectFrom(arm(id).as(`p${i}`)).selectAll());
      const merged = rest
        .reduce((union, next) => union.unionAll(next), first!)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(p("limit"));
      if (!keysOnly) return merged;
      return ex
        .selectFrom(merged.as("k"))
        .innerJoin("pm_task_events as e", (join) => join.onRef(sql.ref("e.rowid"), "=", "k.rid"))
        .selectAll("e")
        .orderBy("k.created_at", "desc")
        .orderBy("k.id", "desc");
    });
  const feedStatements = {
    project: { first: feedPage(false, "project"), before: feedPage(true, "project") },
    workspace: { first: feedPage(false, "workspace"), before: feedPage(true, "workspace") },
  } as const;
  // The workspaces of a user (pm_workspace_members_user): every project a user sees is in one of
  // them (a project membership's foreign key is a workspace membership).
  const selectWorkspacesOf = compiledOnce<{ userId: string }>((ex, p) =>
    ex.selectFrom("pm_workspace_members").select("workspace_id").where("user_id", "=", p("userId")).orderBy("workspace_id"),
  );
  const selectTask = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("pm_tasks").selectAll().where("id", "=", p("id")));
  // Every task creation reads its project's last rank.
  const selectLastRank = compiledOnce<{ projectId: string }>((ex, p) =>
    ex.selectFrom("pm_tasks").select("rank").where("project_id", "=", p("projectId")).orderBy("rank", "desc").limit(1),
  );
  return {
    // A new task under its fresh id: nobody reads the answer (unanswered on Postgres).
    insertTask: (task) => sendStatement(db, insertTask, task).pipe(withSpan("TasksRepository.insertTask")),
    findTask: (id) =>
      runStatement(db, selectTask, { id }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : tasks.fromRow(r))),
        withSpan("TasksRepository.findTask"),
      ),
    findTaskWithRoles: (taskId, userId) =>
      runStatement(db, selectTaskWithRoles, { taskId, userId }).pipe(
        Effect.map(({ rows: [r] }) =>
          r === undefined ? null : { task: tasks.fromRow(r), project: projects.fromPrefixedRow(r, projectPrefix), ...readRoles(r) },
        ),
        withSpan("TasksRepository.findTaskWithRoles"),
      ),
    updateTask: (task, expectedVersion) =>
      runStatement(db, conditionalUpdate, { record: task, expectedVersion }).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0) === 1),
        withSpan("TasksRepository.updateTask"),
      ),
    lastRank: (projectId) =>
      runStatement(db, selectLastRank, { projectId }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : String(r.rank)))),
    listTasks: ({ projectId, status, filter, order = { by: "rank", direction: "asc" }, after, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_tasks").selectAll().where("project_id", "=", projectId).where("deleted_at", "is", null);
        if (status !== undefined) query = query.where("status", "=", status);
        for (const condition of filterConditions(f, filter)) query = query.where(condition);
        const { keys, valuesOf } = orderTerms(f, order);
        if (after !== undefined) {
          const position = positionOf(after);
          const values = [...valuesOf(position), position.id].map((v) => sql`${v}`);
          // A row-value comparison, so both databases seek the (project, keys..., id) index to the cursor.
          const op = sql.raw(order.direction === "asc" ? ">" : "<");
          query = query.where(sql<boolean>`(${sql.join(keys)}) ${op} (${sql.join(values)})`);
        }
        for (const key of keys) query = query.orderBy(key, order.direction);
        return query.limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => tasks.fromRow(r))),
        withSpan("TasksRepository.listTasks"),
      ),
    // Append-only under a fresh id, answer unread: sent without waiting in a Postgres transaction.
    appendEvent: (e) => sendStatement(db, insertEvent, e).pipe(withSpan("TasksRepository.appendEvent")),
    listEvents: ({ scope, before, limit }) =>
      Effect.gen(function* () {
        const cursor = before === undefined ? { at: undefined, beforeId: undefined } : { at: f.timeToDb(new Date(before.createdAt)), beforeId: before.id };
        const { arms, ids, userId } = isListedScope(scope)
          ? { arms: "project" as const, ids: scope.projectIds, userId: undefined }
          : {
              arms: "workspace" as const,
              ids:
                scope.workspaceId !== undefined
                  ? [scope.workspaceId]
                  : (yield* runStatement(db, selectWorkspacesOf, { userId: scope.visibleTo })).rows.map((r) => String(r.workspace_id)),
              userId: scope.visibleTo,
            };
        if (ids.length === 0) return [];
        const statement = feedStatements[arms][before === undefined ? "first" : "before"];
        const page = (list: ReadonlyArray<string>) => Effect.map(runStatement(db, statement, { ...cursor, limit, userId, list }), ({ rows }) => rows);
        if (ids.length <= feedArmsPerStatement) return yield* page(ids);
        // In statements of feedArmsPerStatement (SQLite's compound SELECT limit), merged here.
        const pages = yield* Effect.forEach(chunked(ids, feedArmsPerStatement), page, { concurrency: feedStatementsAtOnce });
        return pages
          .flat()
          .sort((a, b) => feedOrder(f, a, b))
          .slice(0, limit);
      }).pipe(
        Effect.map((rows) => rows.map((r) => events.fromRow(r))),
        withSpan("TasksRepository.listEvents"),
      ),
  };
};
