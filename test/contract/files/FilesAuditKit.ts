/**
 * Contract kit for FilesAudit (ports/files/FilesAudit.ts): the file storage audit trail is
 * append-only; entries come back exactly as appended, oldest first, only under their workspace;
 * `list` answers the oldest `limit`, and `page` walks the trail by the `(createdAt, id)` key
 * without skipping or repeating entries appended at the same instant, also when entries are
 * appended between pages.
 */
import { Effect } from "effect";
import type { AuditEntry } from "../../../core/files/model/AuditEntry.js";
import type { WorkspaceId } from "../../../core/files/model/Ids.js";
import { FilesAudit } from "../../../ports/files/FilesAudit.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { seedDrive, type DriveSeedPorts } from "./fixtures.js";

/** The ports this kit needs: the audit trail, and the drives of the workspaces it records. */
export type FilesAuditKitPorts = FilesAudit | DriveSeedPorts;

const audit = <A>(f: (r: FilesAudit) => Effect.Effect<A>) => Effect.flatMap(FilesAudit, f);

/** Audit entry id `n` (kind digit 8). */
export const auditEntryKitId = (n: number): string => driveKitId(8, n);

/** Entry `n` of `workspaceId`, appended at `at(ms)`. */
export const auditEntryRecord = (workspaceId: WorkspaceId, n: number, ms: number): AuditEntry => ({
  id: auditEntryKitId(n),
  workspaceId,
  actorId: "kit-admin",
  action: n % 2 === 0 ? "legal_hold.set" : "quota.changed",
  targetId: `target-${n}`,
  reason: n % 2 === 0 ? `reason ${n}` : null,
  data: { n, nested: { ok: true } },
  createdAt: at(ms),
});

const append = (entry: AuditEntry) => audit((r) => r.append(entry));
const ids = (entries: ReadonlyArray<AuditEntry>) => entries.map((e) => e.id);

/** The cases of the FilesAudit kit. */
export const filesAuditCases: ReadonlyArray<KitCase<FilesAuditKitPorts>> = [
  {
    name: "files audit: entries come back as appended, oldest first, only under their workspace; list answers the oldest limit",
    run: async (t, run) => {
      const { workspaceId } = await run(seedDrive(1));
      const other = await run(seedDrive(2));
      const later = auditEntryRecord(workspaceId, 1, 30);
      const earlier = auditEntryRecord(workspaceId, 2, 10);
      const middle = auditEntryRecord(workspaceId, 3, 20);
      for (const entry of [later, earlier, middle]) await run(append(entry));
      await run(append(auditEntryRecord(other.workspaceId, 4, 5)));
      const listed = await run(audit((r) => r.list(workspaceId, 10)));
      t.same(listed, [earlier, middle, later], "as appended (reason, data), oldest first, without the other workspace's");
      t.same(ids(await run(audit((r) => r.list(workspaceId, 2)))), [earlier.id, middle.id], "the oldest two");
      t.same(ids(await run(audit((r) => r.list(other.workspaceId, 10)))), [auditEntryKitId(4)]);
      t.same(await run(audit((r) => r.list(driveKitId(1, 99), 10))), [], "a workspace without entries");
    },
  },
  {
    name: "files audit: pages follow the (createdAt, id) key: the same instant by id, nothing skipped or repeated, later appends come at the end",
    run: async (t, run) => {
      const { workspaceId } = await run(seedDrive(1));
      for (const n of [5, 3, 4, 1, 2]) await run(append(auditEntryRecord(workspaceId, n, n === 1 ? 10 : 20)));
      const walked: Array<string> = [];
      let after: readonly [Date, string] | null = null;
      // Bounded: six entries in pages of two take four calls; a key that repeats entries must not loop forever.
      for (let pages = 1; pages <= 6; pages += 1) {
        const key: readonly [Date, string] | null = after;
        const page: ReadonlyArray<AuditEntry> = await run(audit((r) => r.page(workspaceId, key, 2)));
        t.ok(page.length <= 2, "a page holds at most limit entries");
        if (page.length === 0) break;
        walked.push(...ids(page));
        const last = page[page.length - 1];
        after = last === undefined ? null : [last.createdAt, last.id];
        if (pages === 1) await run(append(auditEntryRecord(workspaceId, 6, 30)));
      }
      t.same(walked, [1, 2, 3, 4, 5, 6].map(auditEntryKitId), "oldest first, ties by id, the entry appended meanwhile last");
      t.same(ids(await run(audit((r) => r.page(workspaceId, [at(20), auditEntryKitId(3)], 10)))), [4, 5, 6].map(auditEntryKitId), "strictly after the key");
    },
  },
];

/** Runs the FilesAudit kit. */
export const filesAuditSuite = (options: SuiteOptions<FilesAuditKitPorts>): Promise<unknown> => runCases(options, filesAuditCases);
