/**
 * Workspace export as a job (spec: "Bulk exports run as jobs"): a workspace member asks for an
 * export (202 with the pending export), polls it, and downloads the result with a short-lived
 * grant once done. Only the requester sees its export, and only while still a workspace
 * member; anyone else gets 404 like an unknown id. A finished export's object is deleted after
 * its retention (7 days by default, core/projects/TrashPurge.ts): it is then `expired` and its
 * download answers 410 export_expired.
 */
import { Effect } from "effect";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { ObjectStore, type ObjectGrant } from "../../ports/ObjectStore.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { requireUser, workspaceAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { ExportExpired, ExportNotReady } from "./Errors.js";
import { exportCondition } from "./GrantConditions.js";
import { workspaceExportJob } from "./ExportJob.js";
import type { WorkspaceExport } from "./model/WorkspaceExport.js";
import { withSpan } from "../kernel/Span.js";
import { WorkspaceExportId, WorkspaceId } from "./model/Ids.js";


/** Lifetime of an export download grant. */
export const exportDownloadTtlMs = 5 * 60_000;

/** Services of the export commands. */
export type ExportServices = WorkspacesRepository | ExportsRepository | Transactions | Jobs | Ids | ObjectStore;

/** Asks for an export of a workspace (any member, guests included: it holds what they may see). */
export const requestExport = (
  principal: Principal,
  workspaceId: WorkspaceId,
): Effect.Effect<WorkspaceExport, Forbidden | NotFound, ExportServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* workspaceAccess(userId, workspaceId);
    const id = WorkspaceExportId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const requested: WorkspaceExport = {
          id,
          workspaceId,
          requestedBy: userId,
          status: "pending",
          objectKey: `pm/${workspaceId}/exports/${id}.jsonl`,
          size: null,
          sha256: null,
          lineCount: null,
          error: null,
          createdAt: at,
          completedAt: null,
        };
        yield* (yield* ExportsRepository).insertExport(requested);
        yield* workspaceExportJob.schedule({ export_id: id }, { runAt: at, key: id });
        return requested;
      }),
    );
  }).pipe(withSpan("Projects.requestExport"));

const ownExport = (userId: string, exportId: WorkspaceExportId) =>
  Effect.gen(function* () {
    const found = yield* (yield* ExportsRepository).findExport(exportId);
    const hidden = new NotFound({ resource: "export", detail: "No such export." });
    if (found === null || found.requestedBy !== userId) return yield* Effect.fail(hidden);
    yield* Effect.mapError(workspaceAccess(userId, found.workspaceId), () => hidden);
    return found;
  });

/** The caller's export and its status. */
export const getExport = (principal: Principal, exportId: WorkspaceExportId): Effect.Effect<WorkspaceExport, Forbidden | NotFound, ExportServices> =>
  Effect.flatMap(requireUser(principal), (userId) => ownExport(userId, exportId)).pipe(withSpan("Projects.getExport"));

/** A short-lived download grant for a finished export (410 export_expired once its retention ended). */
export const downloadExport = (
  principal: Principal,
  exportId: WorkspaceExportId,
): Effect.Effect<ObjectGrant, Forbidden | NotFound | ExportNotReady | ExportExpired, ExportServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const found = yield* ownExport(userId, exportId);
    if (found.status === "expired") {
      return yield* Effect.fail(new ExportExpired({ detail: "The export was deleted after its retention; request a new one." }));
    }
    if (found.status !== "done") {
      return yield* Effect.fail(
        new ExportNotReady({ failed: found.status === "failed", detail: found.status === "failed" ? `The export failed: ${found.error}` : "The export is still running." }),
      );
    }
    return yield* (yield* ObjectStore).grantDownload({
      key: found.objectKey,
      contentType: "application/x-ndjson",
      filename: `workspace-${found.workspaceId}-export.jsonl`,
      ttlMs: exportDownloadTtlMs,
      // Served only while the requester is still a member of the workspace.
      condition: exportCondition(found.id, userId),
    });
  }).pipe(withSpan("Projects.downloadExport"));
