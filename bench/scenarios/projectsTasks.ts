/**
 * Task writes under load. `projects-create-task`: POST /v1/projects/:id/tasks, one project per
 * HTTP connection (authentication, project access, rank, task + TaskEvent + outbox in one
 * transaction). `projects-patch-task`: PATCH /v1/tasks/:id with If-Match "1" on tasks made in
 * setup, one request per task, so every request is a real conditional update (version 1 -> 2)
 * and not a 412. Their raw baselines run every statement of the request on the bare driver, in
 * the same groups: the caller's epoch, the creation's project access read, then the transaction
 * (the update reads its task with the project and the caller's roles). Until the eighth session
 * they left out the epoch and the access reads.
 */
import { randomUUID } from "node:crypto";
import { rankBetween } from "../../core/projects/Rank.js";
import { inPgTransaction, kernelSql } from "../RawStatements.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, RawBounds, RawMeasurement, Scenario } from "../Scenario.js";
import type { RawDatabase } from "../RawDatabase.js";
import { insertTasks, factRows, projectOwner, rawProject, taskSql, timeToDb } from "./projectsFixtures.js";

/**
 * Tasks per HTTP connection for `projects-patch-task`: with 10 connections, 30,000 tasks, enough
 * for a 5 s run and its 5 s warm-up at 3,000 PATCHes per second (1,000 wrapped around at ~2,600 per
 * second on SQLite: 2,209 repeated PATCHes answered 412, counted as non-2xx). Past them the plan
 * wraps around, so raise this for long runs.
 */
const patchTasksPerConnection = 3_000;

/** A task as its row and its wire view (taskView), both built from the same values. */
const newTask = (dialect: RawDatabase["dialect"], ids: { workspaceId: string; projectId: string; userId: string }, rank: string, title: string) => {
  const at = new Date();
  const id = randomUUID();
  const row = [id, ids.workspaceId, ids.projectId, title, "todo", null, rank, 1, null, ids.userId, timeToDb(dialect, at), timeToDb(dialect, at)];
  const view = {
    id, workspace_id: ids.workspaceId, project_id: ids.projectId, title, status: "todo", assignee_id: null, rank, version: 1,
    deleted_at: null, created_by: ids.userId, created_at: at.toISOString(), updated_at: at.toISOString(),
  };
  return { id, row, view };
};


/** Creating tasks, one project per connection. */
export const projectsCreateTask: Scenario = {
  name: "projects-create-task",
  description: "POST /v1/projects/:id/tasks: JWT, project access, last rank, task + TaskEvent + outbox insert in one transaction",
  setup: async (target, { connections }) => {
    const owners = await Promise.all(Array.from({ length: connections }, (_, i) => projectOwner(target, `bench create ${i}`)));
    const requests: BenchRequest[] = owners.map((owner) => ({
      method: "POST",
      path: `/v1/projects/${owner.projectId}/tasks`,
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "bench task" }),
    }));
    return { requests };
  },
  rawBaseline: async (db, bounds): Promise<RawMeasurement> => {
    const sql = taskSql(db.dialect);
    // One project per lane, like one per HTTP connection.
    const projects = await Promise.all(Array.from({ length: Math.max(1, bounds.concurrency) }, () => rawProject(db)));
    const rowsFor = (ids: (typeof projects)[number], last: string | null) => {
      const task = newTask(db.dialect, ids, rankBetween(last, null), "bench task");
      const fact = factRows(db.dialect, { task: task.view, ...ids, taskId: task.id, actorId: ids.userId, kind: "task.created", version: 1 });
      return { task, fact };
    };
    const epoch = kernelSql(db.dialect).epoch;
    const label = `epoch read, project access read; ${sql.begin}; select last rank; insert pm_tasks; insert pm_task_events; insert outbox; COMMIT`;
    if (db.dialect === "sqlite") {
      const s = db.sqlite;
      const [readEpoch, access, begin, lastRank, insertTask, appendEvent, appendOutbox, commit] = [epoch, sql.projectAccess, sql.begin, sql.lastRank, sql.insertTask, sql.appendEvent, sql.appendOutbox, "COMMIT"].map((text) => s.prepare(text));
      const ids = projects[0]!;
      const measured = await measureOps(() => {
        readEpoch!.get(ids.userId);
        access!.get(ids.userId, ids.userId, ids.projectId);
        begin!.run();
        const last = lastRank!.get(ids.projectId, 1) as { rank: string } | undefined;
        const { task, fact } = rowsFor(ids, last?.rank ?? null);
        insertTask!.run(...task.row);
        appendEvent!.run(...fact.event);
        appendOutbox!.run(...fact.outbox);
        commit!.run();
      }, bounds);
      return { ...measured, label };
    }
    const pool = db.pool;
    const measured = await measureOps(
      async (_sequence, lane) => {
        const ids = projects[lane % projects.length]!;
        await pool.query(epoch, [ids.userId]);
        await pool.query(sql.projectAccess, [ids.userId, ids.userId, ids.projectId]);
        await inPgTransaction(pool, async (query) => {
          const last = (await query(sql.lastRank, [ids.projectId, 1])).rows[0] as { rank: string } | undefined;
          const { task, fact } = rowsFor(ids, last?.rank ?? null);
          await query(sql.insertTask, task.row);
          await query(sql.appendEvent, fact.event);
          await query(sql.appendOutbox, fact.outbox);
        });
      },
      bounds,
    );
    return { ...measured, label };
  },
};

/** Conditional PATCHes, each on its own task at version 1. */
export const projectsPatchTask: Scenario = {
  name: "projects-patch-task",
  description: "PATCH /v1/tasks/:id with If-Match: JWT, task access, read, conditional UPDATE ... AND version = ?, TaskEvent + outbox",
  setup: async (target, { connections }) => {
    const owner = await projectOwner(target, "bench patch");
    const tasks = await insertTasks(target, owner, connections * patchTasksPerConnection);
    const requests: BenchRequest[] = tasks.map((task) => ({
      method: "PATCH",
      path: `/v1/tasks/${task.id}`,
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", "if-match": `"${task.version}"` },
      body: JSON.stringify({ title: "bench task, patched" }),
    }));
    return { requests, consumable: true };
  },
  rawBaseline: async (db, bounds: RawBounds): Promise<RawMeasurement> => {
    const sql = taskSql(db.dialect);
    const ids = await rawProject(db);
    // One task per lane, each lane sequential: every update sees the version it expects.
    const lanes = Math.max(1, bounds.concurrency);
    const tasks = Array.from({ length: lanes }, (_, lane) => newTask(db.dialect, ids, rankBetween(null, null) + String(lane), "bench task"));
    for (const task of tasks) {
      if (db.dialect === "sqlite") db.sqlite.prepare(sql.insertTask).run(...task.row);
      else await db.pool.query(sql.insertTask, task.row);
    }
    const versions = tasks.map(() => 1);
    /** The update's parameters and its fact, from the current version of the lane's task. */
    const change = (lane: number, sequence: number) => {
      const task = tasks[lane]!;
      const expected = versions[lane]!;
      const title = `bench task ${sequence}`;
      const at = new Date();
      const view = { ...task.view, title, version: expected + 1, updated_at: at.toISOString() };
      const update = [title, "todo", null, task.view.rank, expected + 1, null, timeToDb(db.dialect, at), task.id, expected];
      const fact = factRows(db.dialect, {
        task: view, ...ids, taskId: task.id, actorId: ids.userId, kind: "task.updated", version: expected + 1,
        extra: { changes: { title: { from: task.view.title, to: title } } },
      });
      return { update, fact };
    };
    const conflict = (): Error => new Error("raw baseline: the conditional update matched no row");
    const epoch = kernelSql(db.dialect).epoch;
    const label = `epoch read; ${sql.begin}; select task with project and roles; update pm_tasks ... where id = ? and version = ?; insert pm_task_events; insert outbox; COMMIT`;
    if (db.dialect === "sqlite") {
      const s = db.sqlite;
      const [readEpoch, begin, findTask, updateTask, appendEvent, appendOutbox, commit] = [epoch, sql.begin, sql.findTask, sql.updateTask, sql.appendEvent, sql.appendOutbox, "COMMIT"].map((text) => s.prepare(text));
      const measured = await measureOps((sequence) => {
        readEpoch!.get(ids.userId);
        begin!.run();
        findTask!.get(ids.userId, ids.userId, tasks[0]!.id);
        const { update, fact } = change(0, sequence);
        if (updateTask!.run(...update).changes !== 1) {
          s.prepare("ROLLBACK").run();
          throw conflict();
        }
        appendEvent!.run(...fact.event);
        appendOutbox!.run(...fact.outbox);
        commit!.run();
        versions[0]! += 1;
      }, bounds);
      return { ...measured, label };
    }
    const pool = db.pool;
    const measured = await measureOps(
      async (sequence, lane) => {
        await pool.query(epoch, [ids.userId]);
        await inPgTransaction(pool, async (query) => {
          await query(sql.findTask, [ids.userId, ids.userId, tasks[lane]!.id]);
          const { update, fact } = change(lane, sequence);
          if ((await query(sql.updateTask, update)).rowCount !== 1) throw conflict();
          await query(sql.appendEvent, fact.event);
          await query(sql.appendOutbox, fact.outbox);
          versions[lane]! += 1;
        });
      },
      bounds,
    );
    return { ...measured, label };
  },
};
