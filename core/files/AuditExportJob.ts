/**
 * The audit export job (kind `files.audit_export`, keyed by export): streams the workspace's
 * `fs_audit` entries, oldest first, as JSON lines (`{"type":"audit_export",...}` then one
 * `{"type":"audit",...}` per entry, snake_case, RFC 3339 times) into the object store in keyset
 * pages of 500, so memory stays bounded. A requester who is no longer a workspace admin when it
 * runs gets a failed export. Entries appended while it runs may or may not appear. A done export
 * is kept `FilesSettings.auditExportRetentionMs` after completion, then its object is removed.
 */
import { Chunk, Effect, Option, Schema, Stream } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { toWire } from "../kernel/Wire.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { AuditExportsRepository } from "../../ports/files/AuditExportsRepository.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { AuditEntry } from "./model/AuditEntry.js";
import type { AuditExport } from "./model/AuditExport.js";
import { objectRemovalJob } from "./ObjectRemoval.js";
import { withSpan } from "../kernel/Span.js";

/** Entries per page read from the database. */
export const auditExportPageSize = 500;

/**
 * Schedules the removal of a done export's object at `removalAt` and records it on the export
 * (once: the daily run schedules it for exports that have none, AuditExportRetentionSweep.ts);
 * false when it was already scheduled (a concurrent run marked it first).
 */
export const scheduleAuditExportRemoval = (audit: AuditExport, removalAt: Date) =>
  Effect.gen(function* () {
    if (!(yield* (yield* AuditExportsRepository).markObjectRemoval(audit.workspaceId, audit.id, removalAt))) return false;
    yield* objectRemovalJob.schedule({ keys: [audit.objectKey] }, { key: `audit-export:${audit.id}:retention`, runAt: removalAt });
    return true;
  });

type Line = Readonly<Record<string, unknown>>;

/** Runs one export to its end (a finished one is left as it is). */
export const runAuditExport = (workspaceId: string, exportId: string) =>
  Effect.gen(function* () {
    const repo = yield* AuditExportsRepository;
    const found = yield* repo.find(workspaceId, exportId);
    if (found === null || found.status !== "pending") return found?.status ?? null;
    const standing = yield* (yield* WorkspaceDirectory).standing(workspaceId, found.requestedBy);
    if (standing !== "admin") {
      yield* repo.finish({ ...found, status: "failed", error: "the requester is no longer a workspace admin", completedAt: yield* now });
      return "failed" as const;
    }
    const audit = yield* FilesAudit;
    let lines = 0;
    const entries = Stream.paginateChunkEffect(null as readonly [Date, string] | null, (after) =>
      Effect.map(audit.page(workspaceId, after, auditExportPageSize), (rows) => {
        const last = rows[rows.length - 1];
        const chunk = Chunk.fromIterable(rows.map((row): Line => ({ type: "audit", ...toWire(AuditEntry, row) })));
        const next = rows.length < auditExportPageSize || last === undefined ? Option.none() : Option.some([last.createdAt, last.id] as const);
        return [chunk, next] as const;
      }),
    );
    const head = Stream.fromIterable<Line>([{ type: "audit_export", id: found.id, workspace_id: workspaceId, requested_by: found.requestedBy, format: "jsonl", version: 1 }]);
    const body = Stream.concat(head, entries).pipe(
      Stream.map((line) => {
        lines += 1;
        return new TextEncoder().encode(`${JSON.stringify(line)}\n`);
      }),
    );
    const stored = yield* (yield* ObjectStore).put(found.objectKey, body);
    const completedAt = yield* now;
    const retentionMs = (yield* FilesSettings).auditExportRetentionMs;
    // The export names every actor of the trail: its object is removed when its retention ends,
    // by a job written with the completion (the object already stored is removed either way).
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        if (!(yield* repo.finish({ ...found, status: "done", sizeBytes: stored.size, sha256: stored.sha256, lineCount: lines, completedAt }))) return;
        yield* scheduleAuditExportRemoval(found, new Date(completedAt.getTime() + retentionMs));
      }),
    );
    return "done" as const;
  }).pipe(withSpan("files.runAuditExport"));

export const auditExportJob = defineJob({
  kind: "files.audit_export",
  payload: Schema.Struct({ workspace_id: Schema.String, export_id: Schema.String }),
  handle: (payload) => Effect.asVoid(runAuditExport(payload.workspace_id, payload.export_id)),
});
