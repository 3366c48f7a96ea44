/**
 * Contract kit for AuditExportsRepository (ports/files/AuditExportsRepository.ts): an export is
 * stored pending as given and found under its workspace only; finishing it (`pending → done |
 * failed`) happens once: a second finish, or one through another workspace, answers false and
 * changes nothing.
 */
import { Effect } from "effect";
import { AuditExportId, type AuditExport } from "../../../core/files/model/AuditExport.js";
import type { WorkspaceId } from "../../../core/files/model/Ids.js";
import { AuditExportsRepository } from "../../../ports/files/AuditExportsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { seedDrive, type DriveSeedPorts } from "./fixtures.js";

/** The ports this kit needs: the repository, and the drive of the workspace exported. */
export type AuditExportsRepositoryKitPorts = AuditExportsRepository | DriveSeedPorts;

const exportsOf = <A>(f: (r: AuditExportsRepository) => Effect.Effect<A>) => Effect.flatMap(AuditExportsRepository, f);

/** Audit export id `n` (kind digit 9). */
export const auditExportKitId = (n: number): AuditExportId => AuditExportId.make(driveKitId(9, n));

/** A pending export `n` of `workspaceId`, requested at `at(n)`. */
export const auditExportRecord = (workspaceId: WorkspaceId, n: number): AuditExport => ({
  id: auditExportKitId(n),
  workspaceId,
  requestedBy: "kit-admin",
  status: "pending",
  objectKey: `kit/audit/${n}.jsonl`,
  sizeBytes: null,
  sha256: null,
  lineCount: null,
  error: null,
  createdAt: at(n),
  completedAt: null,
});

/** Drive `n` with pending export `n`. */
const seedExport = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId } = yield* seedDrive(n);
    const pending = auditExportRecord(workspaceId, n);
    yield* exportsOf((r) => r.insert(pending));
    return { workspaceId, pending };
  });

/** The cases of the AuditExportsRepository kit. */
export const auditExportsRepositoryCases: ReadonlyArray<KitCase<AuditExportsRepositoryKitPorts>> = [
  {
    name: "audit exports: a pending export is stored as given and found under its workspace only",
    run: async (t, run) => {
      const { workspaceId, pending } = await run(seedExport(1));
      const other = await run(seedExport(2));
      t.same(await run(exportsOf((r) => r.find(workspaceId, pending.id))), pending, "stored as given");
      t.equal(await run(exportsOf((r) => r.find(other.workspaceId, pending.id))), null, "absent under another workspace");
      t.equal(await run(exportsOf((r) => r.find(workspaceId, auditExportKitId(99)))), null, "an unknown id");
    },
  },
  {
    name: "audit exports: finishing happens once: the first finish is stored, a later one (done or failed) answers false and changes nothing",
    run: async (t, run) => {
      const { workspaceId, pending } = await run(seedExport(1));
      const done: AuditExport = { ...pending, status: "done", sizeBytes: 1234, sha256: "c".repeat(64), lineCount: 7, completedAt: at(50) };
      const failed: AuditExport = { ...pending, status: "failed", error: "store unavailable", completedAt: at(60) };
      t.equal(await run(exportsOf((r) => r.finish(done))), true, "pending → done");
      t.same(await run(exportsOf((r) => r.find(workspaceId, pending.id))), done, "stored with its object's size, checksum and lines");
      t.equal(await run(exportsOf((r) => r.finish(failed))), false, "no longer pending");
      t.equal(await run(exportsOf((r) => r.finish({ ...done, lineCount: 8 }))), false, "nor finished twice");
      t.same(await run(exportsOf((r) => r.find(workspaceId, pending.id))), done, "the first finish stands");
    },
  },
  {
    name: "audit exports: a finish through another workspace answers false and leaves the export pending",
    run: async (t, run) => {
      const { workspaceId, pending } = await run(seedExport(1));
      const other = await run(seedExport(2));
      const failed: AuditExport = { ...pending, workspaceId: other.workspaceId, status: "failed", error: "x", completedAt: at(60) };
      t.equal(await run(exportsOf((r) => r.finish(failed))), false);
      t.same(await run(exportsOf((r) => r.find(workspaceId, pending.id))), pending, "still pending");
      t.same(await run(exportsOf((r) => r.find(other.workspaceId, other.pending.id))), other.pending, "the other workspace's own export too");
    },
  },
  {
    name: "audit exports: done exports completed before a time with no scheduled removal are listed oldest first; marking a removal happens once, only for a done export",
    run: async (t, run) => {
      const first = await run(seedExport(1));
      const second = await run(seedExport(2));
      const pending = await run(seedExport(3));
      const late = await run(seedExport(4));
      const finish = (e: AuditExport, completed: number) => run(exportsOf((r) => r.finish({ ...e, status: "done", sizeBytes: 1, sha256: "d".repeat(64), lineCount: 1, completedAt: at(completed) })));
      await finish(second.pending, 10);
      await finish(first.pending, 20);
      await finish(late.pending, 90);
      const due = async () => (await run(exportsOf((r) => r.withoutObjectRemoval(at(50), 10)))).map((e) => e.id);
      t.same(await due(), [second.pending.id, first.pending.id], "done before the time, oldest first, of every workspace");
      t.same((await run(exportsOf((r) => r.withoutObjectRemoval(at(50), 1)))).map((e) => e.id), [second.pending.id], "at most the limit");
      t.equal(await run(exportsOf((r) => r.markObjectRemoval(second.workspaceId, second.pending.id, at(60)))), true, "marked");
      t.equal(await run(exportsOf((r) => r.markObjectRemoval(second.workspaceId, second.pending.id, at(70)))), false, "once");
      t.equal(await run(exportsOf((r) => r.markObjectRemoval(first.workspaceId, second.pending.id, at(60)))), false, "never through another workspace");
      t.equal(await run(exportsOf((r) => r.markObjectRemoval(pending.workspaceId, pending.pending.id, at(60)))), false, "nor for a pending export");
      t.same(await due(), [first.pending.id], "a marked export is no longer listed");
    },
  },
];

/** Runs the AuditExportsRepository kit. */
export const auditExportsRepositorySuite = (options: SuiteOptions<AuditExportsRepositoryKitPorts>): Promise<unknown> => runCases(options, auditExportsRepositoryCases);
