/**
 * Contract kit for the ExportsRepository: an export reads back as written and is finished once
 * (only while pending); the visible projects are walked by id (every project of the workspace
 * for an owner, else the user's memberships); the keyset reads an export streams from are in
 * (project_id, id) order, strictly after the cursor (the last row's project and id), limited to
 * the given projects in the query (none given: nothing), tasks in the trash included.
 */
import { Effect } from "effect";
import type { ProjectMember } from "../../../core/projects/model/ProjectMember.js";
import type { WorkspaceExport } from "../../../core/projects/model/WorkspaceExport.js";
import { ExportsRepository, type ExportCursor, type ExportPage } from "../../../ports/projects/ExportsRepository.js";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedProject, seedTasks, taskRecord, idsOf, joinProject, uid, walkPages, type SeedPorts } from "./fixtures.js";
import { ProjectId, WorkspaceExportId, WorkspaceId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type ExportsKitPorts = ExportsRepository | TasksRepository | SeedPorts;

const exportsRepo = <A>(f: (r: ExportsRepository) => Effect.Effect<A>) => Effect.flatMap(ExportsRepository, f);
const ids = idsOf;

/** A pending export `n` of workspace 1. */
export const exportRecord = (n: number): WorkspaceExport => ({
  id: WorkspaceExportId.make(uid("exp", n)),
  workspaceId: WorkspaceId.make(uid("ws", 1)),
  requestedBy: "user-1",
  status: "pending",
  objectKey: `exports/${uid("exp", n)}.jsonl`,
  size: null,
  sha256: null,
  lineCount: null,
  error: null,
  createdAt: T0,
  completedAt: null,
});

/** Reads every page of `read` over `projectIds`, `limit` rows at a time, following the last row's cursor (its project and `key`). */
const drain = <A extends { readonly projectId: string }, R>(
  read: (req: ExportPage) => Effect.Effect<ReadonlyArray<A>, never, R>,
  projectIds: ReadonlyArray<string>,
  limit: number,
  key: (row: A) => string,
) => walkPages((after: ExportCursor | undefined) => read({ projectIds, after, limit }), (last) => ({ projectId: last.projectId, id: key(last) }));

/** The cases of the exports repository kit. */
export const exportsCases: ReadonlyArray<KitCase<ExportsKitPorts>> = [
  {
    name: "exports: an export reads back as written and is finished only while pending",
    run: async (t, run) => {
      await run(seedProject(1));
      await run(exportsRepo((r) => r.insertExport(exportRecord(1))));
      t.same(await run(exportsRepo((r) => r.findExport(uid("exp", 1)))), exportRecord(1));
      t.equal(await run(exportsRepo((r) => r.findExport(uid("exp", 2)))), null);
      const done: WorkspaceExport = { ...exportRecord(1), status: "done", size: 2048, sha256: "b".repeat(64), lineCount: 12, completedAt: at(100) };
      t.equal(await run(exportsRepo((r) => r.finishExport(done))), true);
      t.same(await run(exportsRepo((r) => r.findExport(uid("exp", 1)))), done);
      const failed: WorkspaceExport = { ...exportRecord(1), status: "failed", error: "late", completedAt: at(200) };
      t.equal(await run(exportsRepo((r) => r.finishExport(failed))), false, "no longer pending");
      t.same(await run(exportsRepo((r) => r.findExport(uid("exp", 1)))), done, "the first outcome stands");
    },
  },
  {
    name: "exports: tasks are read in (project_id, id) order over the given projects, deleted ones included, page by page",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(1, 3));
      await run(
        seedTasks([
          taskRecord(a, uid("task", 3)),
          taskRecord(b, uid("task", 1), { deletedAt: at(1) }),
          taskRecord(c, uid("task", 2)),
          taskRecord(a, uid("task", 5)),
          taskRecord(b, uid("task", 4)),
        ]),
      );
      const read = (req: ExportPage) => exportsRepo((r) => r.tasks(req));
      t.same(ids(await run(drain(read, [a.id, b.id], 2, (task) => task.id))), [uid("task", 3), uid("task", 5), uid("task", 1), uid("task", 4)], "by project, then id; not project c's; the deleted one too");
      t.same(ids(await run(drain(read, [a.id, b.id], 1, (task) => task.id))), [uid("task", 3), uid("task", 5), uid("task", 1), uid("task", 4)], "a page of one row crosses from project to project");
      t.same(
        ids(await run(read({ projectIds: [a.id, b.id], after: { projectId: a.id, id: uid("task", 3) }, limit: 10 }))),
        [uid("task", 5), uid("task", 1), uid("task", 4)],
        "strictly after the cursor: the rest of its project, then the projects after it",
      );
      t.same(ids(await run(read({ projectIds: [a.id, b.id], workspaceId: a.workspaceId, limit: 10 }))), [uid("task", 3), uid("task", 5), uid("task", 1), uid("task", 4)], "within the projects' workspace");
      t.same(ids(await run(read({ projectIds: [c.id], limit: 1 }))), [uid("task", 2)], "the project filter applies before the limit");
      t.same(await run(read({ projectIds: [], limit: 10 })), [], "no visible project, nothing");
      t.same(ids(await run(drain(read, [b.id, a.id], 2, (task) => task.id))), [uid("task", 3), uid("task", 5), uid("task", 1), uid("task", 4)], "a list out of order reads the same pages");
      t.same(ids(await run(drain(read, [b.id, a.id], 1, (task) => task.id))), [uid("task", 3), uid("task", 5), uid("task", 1), uid("task", 4)], "one row a page too");
    },
  },
  {
    name: "exports: visibleProjects walks every project of the workspace for an owner, else the user's memberships, by id, page by page, a member's with its project role",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(1, 3));
      const elsewhere = await run(seedProject(2, 4));
      const join = (projectId: ProjectId, workspaceId: WorkspaceId, role: ProjectMember["role"]): ProjectMember => ({ workspaceId, projectId, userId: "user-1", role, addedBy: "owner-1", createdAt: T0 });
      await run(Effect.forEach([join(c.id, c.workspaceId, "viewer"), join(a.id, a.workspaceId, "contributor"), join(elsewhere.id, elsewhere.workspaceId, "admin")], joinProject));
      const walk = (everyProject: boolean) =>
        run(walkPages((afterId: string | undefined) => exportsRepo((r) => r.visibleProjects({ workspaceId: a.workspaceId, userId: "user-1", everyProject, afterId, limit: 2 })), (last) => last.id));
      t.same((await walk(true)).map((p) => p.id), [a.id, b.id, c.id], "an owner: every project of the workspace");
      t.same((await walk(false)).map((p) => [p.id, p.projectRole]), [[a.id, "contributor"], [c.id, "viewer"]], "a member: its memberships' projects of this workspace only");
    },
  },
  {
    name: "exports: project memberships are read page by page over the given projects, each once",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      const c = await run(seedProject(1, 3));
      const add = (projectId: ProjectId, userId: string): ProjectMember => ({
        workspaceId: a.workspaceId,
        projectId,
        userId,
        role: "viewer",
        addedBy: "owner-1",
        createdAt: T0,
      });
      const memberships = [add(a.id, "user-2"), add(a.id, "user-1"), add(b.id, "user-1"), add(c.id, "user-3"), add(b.id, "user-3")];
      await run(Effect.forEach(memberships, joinProject));
      const rows = await run(drain((req) => exportsRepo((r) => r.projectMembers(req)), [a.id, b.id], 2, (m) => m.userId));
      const seen = rows.map((m) => `${m.projectId} ${m.userId}`);
      t.same([...seen].sort(), [`${a.id} user-1`, `${a.id} user-2`, `${b.id} user-1`, `${b.id} user-3`], "every membership once, none of project c");
      t.same(rows.map((m) => [m.projectId, m.userId]), [[a.id, "user-1"], [a.id, "user-2"], [b.id, "user-1"], [b.id, "user-3"]], "in (project, user) order");
      t.equal(new Set(rows.map((m) => m.id)).size, rows.length, "ids are distinct");
    },
  },
  {
    name: "exports: exportsToExpire finds done exports completed before the cutoff, oldest first; markExpired moves only a done one",
    run: async (t, run) => {
      await run(seedProject(1));
      const finished = (n: number, completedAt: number, status: "done" | "failed"): WorkspaceExport =>
        status === "done"
          ? { ...exportRecord(n), status, size: 10, sha256: "c".repeat(64), lineCount: 1, completedAt: at(completedAt) }
          : { ...exportRecord(n), status, error: "gone", completedAt: at(completedAt) };
      await run(Effect.forEach([1, 2, 3, 4, 5], (n) => exportsRepo((r) => r.insertExport(exportRecord(n))), { discard: true }));
      const outcomes = [finished(1, 300, "done"), finished(2, 100, "done"), finished(3, 50, "failed"), finished(5, 1000, "done")];
      await run(Effect.forEach(outcomes, (e) => exportsRepo((r) => r.finishExport(e)), { discard: true }));
      const ids = (rows: ReadonlyArray<WorkspaceExport>) => rows.map((e) => e.id);
      t.same(ids(await run(exportsRepo((r) => r.exportsToExpire(at(500), 10)))), [uid("exp", 2), uid("exp", 1)], "neither pending nor failed exports expire");
      t.same(ids(await run(exportsRepo((r) => r.exportsToExpire(at(300), 10)))), [uid("exp", 2)], "strictly before the cutoff");
      t.same(ids(await run(exportsRepo((r) => r.exportsToExpire(at(500), 1)))), [uid("exp", 2)]);
      t.equal(await run(exportsRepo((r) => r.markExpired(uid("exp", 2)))), true);
      t.equal((await run(exportsRepo((r) => r.findExport(uid("exp", 2)))))?.status, "expired");
      t.equal(await run(exportsRepo((r) => r.markExpired(uid("exp", 2)))), false, "already expired");
      t.equal(await run(exportsRepo((r) => r.markExpired(uid("exp", 4)))), false, "a pending export does not expire");
      t.equal(await run(exportsRepo((r) => r.markExpired(uid("exp", 3)))), false, "nor a failed one");
      t.same(ids(await run(exportsRepo((r) => r.exportsToExpire(at(500), 10)))), [uid("exp", 1)], "an expired export is not read again");
    },
  },
];

/** Runs the exports repository kit. */
export const exportsSuite = (options: SuiteOptions<ExportsKitPorts>): Promise<unknown> => runCases(options, exportsCases);
