/**
 * Audit export as a job (spec should-have: "audit export as a job (JSON lines, download
 * grant)"), mirroring the project module's workspace export: a workspace admin asks
 * (`POST /v1/workspaces/:id/audit-exports` → 202 with the pending export), polls
 * (`GET .../audit-exports/:export_id`), and once done the answer carries a short-lived download
 * grant. Only the requester sees its export, and only while still an admin; anyone else gets 404
 * (members who are not admins: 403 on the request).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { AuditExportsRepository } from "../../ports/files/AuditExportsRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { requireMember, requireWorkspaceAdmin } from "./Access.js";
import { auditExportJob } from "./AuditExportJob.js";
import { ensureDrive } from "./Drives.js";
import { AuditExportId, type AuditExport } from "./model/AuditExport.js";
import { WorkspaceId } from "./model/Ids.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** An export and, once done, its download grant. */
export interface AuditExportState {
  readonly export: AuditExport;
  readonly download: { readonly url: string; readonly expiresAt: Date } | null;
}

const onlyAdmins = "only a workspace admin exports the audit trail";

/** A workspace admin asks for an export of the workspace's audit trail. */
export const requestAuditExport = (input: { readonly userId: string; readonly workspaceId: string }): Effect.Effect<AuditExport, NotFound | Forbidden, FilesServices> =>
  Effect.gen(function* () {
    yield* requireWorkspaceAdmin(input.workspaceId, input.userId, onlyAdmins);
    yield* ensureDrive(input.workspaceId, input.userId);
    const id = AuditExportId.make(yield* (yield* Ids).next);
    const at = yield* now;
    const requested: AuditExport = {
      id,
      workspaceId: WorkspaceId.make(input.workspaceId),
      requestedBy: input.userId,
      status: "pending",
      objectKey: `files/${input.workspaceId}/audit-exports/${id}.jsonl`,
      sizeBytes: null,
      sha256: null,
      lineCount: null,
      error: null,
      createdAt: at,
      completedAt: null,
    };
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the drive lock, membership held: a demotion or removal committed since is seen.
        yield* (yield* DriveRepository).lock(input.workspaceId);
        yield* requireWorkspaceAdmin(input.workspaceId, input.userId, onlyAdmins, true);
        yield* (yield* AuditExportsRepository).insert(requested);
        yield* auditExportJob.schedule({ workspace_id: input.workspaceId, export_id: id }, { runAt: at, key: id });
      }),
    );
    return requested;
  }).pipe(withSpan("files.requestAuditExport"));

/** The requester's export, with a download grant when done. */
export const getAuditExport = (input: { readonly userId: string; readonly workspaceId: string; readonly exportId: string }): Effect.Effect<AuditExportState, NotFound, FilesServices> =>
  Effect.gen(function* () {
    const hidden = new NotFound({ resource: "audit_export" });
    const standing = yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => hidden));
    const found = yield* (yield* AuditExportsRepository).find(input.workspaceId, input.exportId);
    if (found === null || found.requestedBy !== input.userId || standing !== "admin") return yield* Effect.fail(hidden);
    if (found.status !== "done") return { export: found, download: null };
    // Past its retention the export is not served (its object is being removed: AuditExportJob.ts).
    const settings = yield* FilesSettings;
    if (found.completedAt !== null && (yield* now).getTime() >= found.completedAt.getTime() + settings.auditExportRetentionMs) return { export: found, download: null };
    const grant = yield* (yield* ObjectStore).grantDownload({
      key: found.objectKey,
      contentType: "application/x-ndjson",
      filename: `workspace-${found.workspaceId}-file-audit.jsonl`,
      ttlMs: settings.downloadTtlMs,
    });
    return { export: found, download: { url: grant.url, expiresAt: grant.expiresAt } };
  }).pipe(withSpan("files.getAuditExport"));
