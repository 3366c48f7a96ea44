/**
 * Spec rule 4 (rebalance): the rank rebalance is a durable job working in bounded batches, one
 * version-checked row at a time with no global lock; it preserves the order, breaks ties and
 * shortens long keys (SQLite and Postgres), and stays correct while users keep moving tasks:
 * raced on Postgres with real parallel connections, the final order equals the expected order
 * and no move is lost.
 */
import t from "tap";
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { Task } from "../../core/projects/model/Task.js";
import { rowCodec } from "../../adapters/sql/RowCodec.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { rankRebalanceJobKind, rebalanceBatch, scheduleRankRebalance } from "../../core/projects/RankRebalance.js";
import { moveTask } from "../../core/projects/TaskMove.js";
import { forEachDialect, openTestDatabase } from "../support/databases.js";
import { coreFixture, drainJobs, slice2aRuntime } from "./notifications-support.js";
import { ProjectId, TaskId, WorkspaceId } from "../../core/projects/model/Ids.js";

const insertTasks = async (db: SqlDatabase, owner: string, workspaceId: WorkspaceId, projectId: ProjectId, ranks: ReadonlyArray<string>) => {
  const at = new Date();
  const ids = ranks.map(() => TaskId.make(randomUUID()));
  for (const [i, id] of ids.entries()) {
    const task = { id, workspaceId, projectId, title: `t${i}`, status: "todo" as const, assigneeId: null, rank: ranks[i]!, version: 1, deletedAt: null, createdBy: owner, createdAt: at, updatedAt: at };
    await db.db.insertInto("pm_tasks").values(rowCodec(Task, featuresFor(db)).toRow(task)).execute();
  }
  return ids;
};

/** The project's full order (deleted tasks included) as ids, with ranks. */
const fullOrder = async (db: SqlDatabase, projectId: string) =>
  (await db.db.selectFrom("pm_tasks").select(["id", "rank", "version"]).where("project_id", "=", projectId).orderBy("rank").orderBy("id").execute()).map(
    (r) => ({ id: String(r.id), rank: String(r.rank), version: Number(r.version) }),
  );

t.test("the rank rebalance job preserves the order, breaks ties and shortens long keys in bounded batches", (t) =>
  forEachDialect(t, "rebalance", async (t, db) => {
    const { run } = slice2aRuntime(t, db);
    const { owner, workspace, project } = await coreFixture(run);
    // 12 tasks sharing one rank, 5 with long keys, 3 ordinary ones.
    const ranks = [...Array(12).fill("V"), "VzzzzzzzzzzzzzzzzzzU", "Vzzzzzzzzzzzzzzzzzzzk", "W1", "W10000000000000001", "W10000000000000002", "X", "Y", "Z"];
    await insertTasks(db, owner.userId, workspace.id, project.id, ranks);
    const before = await fullOrder(db, project.id);
    const firstBatch = await run(rebalanceBatch(project.id, undefined, 5));
    t.equal(firstBatch.processed, 5, "a batch handles at most its limit");
    t.not(firstBatch.next, null, "and says where the next one starts");
    t.same((await fullOrder(db, project.id)).map((r) => r.id), before.map((r) => r.id), "the order is unchanged after one batch");
    await run(scheduleRankRebalance(project.id));
    await run(drainJobs());
    const after = await fullOrder(db, project.id);
    t.same(after.map((r) => r.id), before.map((r) => r.id), "the order is unchanged after the job");
    t.equal(new Set(after.map((r) => r.rank)).size, after.length, "no two tasks share a rank any more");
    t.ok(after.every((r) => r.rank.length <= 12), "no key is longer than the bound");
    const done = await db.db.selectFrom("jobs").select(["status"]).where("kind", "=", rankRebalanceJobKind).execute();
    t.ok(done.length >= 1 && done.every((j) => j.status === "done"), "the job and its continuations completed");
    const events = await db.db.selectFrom("pm_task_events").select("id").where("actor_id", "=", "system:rank-rebalance").execute();
    t.equal(events.length, after.filter((r) => r.version > 1).length, "every rewritten row recorded its TaskChanged");
  }),
);

t.test("rebalance racing user moves on Postgres keeps the expected order and loses no move", async (t) => {
  const db = await openTestDatabase("postgres", t);
  const { run } = slice2aRuntime(t, db);
  const { owner, workspace, project } = await coreFixture(run);
  // 30 tasks on one rank (the worst case for both moves and the rebalance).
  const ids = await insertTasks(db, owner.userId, workspace.id, project.id, Array(30).fill("V"));
  const initial = (await fullOrder(db, project.id)).map((r) => TaskId.make(r.id));
  // Move 10 tasks, each right after its own anchor; anchors and moved tasks are disjoint.
  const moves = Array.from({ length: 10 }, (_, i) => ({ task: initial[i * 3 + 1]!, anchor: initial[29 - i * 3]! }));
  const movedSet = new Set(moves.map((m) => m.task));
  const expected: string[] = [];
  for (const id of initial) {
    if (movedSet.has(id)) continue;
    expected.push(id);
    for (const m of moves) if (m.anchor === id) expected.push(m.task);
  }
  let rebalanced = 0;
  const rebalancers = Array.from({ length: 2 }, async () => {
    for (let round = 0; round < 3; round++) {
      let after: { rank: string; id: TaskId } | undefined;
      for (;;) {
        const batch = await run(rebalanceBatch(project.id, after, 7));
        rebalanced += batch.moved;
        if (batch.next === null) break;
        after = batch.next;
      }
    }
  });
  const movers = moves.map((m) => run(Effect.either(moveTask(owner, m.task, { beforeId: m.anchor }))));
  const [outcomes] = await Promise.all([Promise.all(movers), Promise.all(rebalancers)]);
  t.ok(outcomes.every((o) => o._tag === "Right"), "every move succeeded");
  t.ok(rebalanced > 0, "the rebalance rewrote rows while the moves ran");
  const final = await fullOrder(db, project.id);
  t.same(final.map((r) => r.id), expected, "the final order is exactly the expected order");
  t.equal(final.length, ids.length, "no task lost");
  for (const m of moves) {
    const row = final.find((r) => r.id === m.task)!;
    t.ok(row.version >= 2, "each move's write is there");
  }
  await run(rebalanceBatch(project.id, undefined, 100));
  const settled = await fullOrder(db, project.id);
  t.same(settled.map((r) => r.id), expected, "a later rebalance keeps that order");
});
