/**
 * The daily orphan multipart cleanup (spec: background work "orphan multipart cleanup"). A
 * session's native multipart upload is begun in the store before the transaction that writes the
 * session (CreateUpload.ts); a process that stops in between leaves an upload that no row names.
 * At 05:00 UTC (keyed by day) the job pages through the store's unfinished uploads under `files/`
 * begun more than a day ago and aborts each that is a session's assembled object
 * (`files/<ws>/uploads/<session>/object`) with no open session holding it: no session row, a row
 * naming another store upload, or a settled session (its own abort failed). Other keys are not the
 * module's and are left alone. Aborting is idempotent, so a failed page is simply run again; each
 * abort is audited after it happened. A full page schedules the next at once, the last the next
 * day's run. A store without native multipart has nothing to clean.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import { ObjectStore, type IncompleteMultipartUpload } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { nextDailyRunAt, utcDay } from "./DailyRun.js";
import { WorkspaceId } from "./model/Ids.js";
import { orphanMultipartCleanupJobType } from "./OrphanMultipartCleanupJobType.js";

/** The UTC hour the cleanup runs at. */
export const orphanMultipartHourUtc = 5;

/** How old an unfinished upload must be before it counts as an orphan (no creation takes a day). */
export const orphanMultipartAgeMs = 86_400_000;

/** Uploads the store lists per page. */
export const orphanMultipartPageSize = 500;

/** The actor recorded for the aborts. */
export const orphanMultipartActor = "system:files-orphan-multipart-cleanup";

/** The workspace and session of a session's assembled object key; null for any other key. */
const sessionOfKey = (key: string): { readonly workspaceId: string; readonly sessionId: string } | null => {
  const match = /^files\/([^/]+)\/uploads\/([^/]+)\/object$/.exec(key);
  return match === null ? null : { workspaceId: match[1]!, sessionId: match[2]! };
};

/** Schedules the next run after `nowMs` (a no-op when that day's is already scheduled). */
export const scheduleOrphanMultipartCleanup = (nowMs: number): Effect.Effect<void, never, Jobs> => {
  const runAt = nextDailyRunAt(nowMs, orphanMultipartHourUtc);
  const day = utcDay(runAt);
  return Effect.asVoid(orphanMultipartCleanupJobType.schedule({ day, after: null }, { runAt: new Date(runAt), key: `day-${day}` }));
};

/** True when no open session holds `upload` (a key of the module's only). */
const isOrphan = (upload: IncompleteMultipartUpload) =>
  Effect.gen(function* () {
    const owner = sessionOfKey(upload.key);
    if (owner === null) return false;
    const session = yield* (yield* UploadsRepository).find(owner.workspaceId, owner.sessionId);
    return session === null || session.storeUploadId !== upload.uploadId || session.status !== "open";
  });

/** One page of the cleanup; answers the uploads it aborted and where the next page starts. */
export const cleanOrphanMultipartUploads = (payload: { readonly day: string; readonly after: { readonly key: string; readonly upload_id: string } | null }, pageSize: number = orphanMultipartPageSize) =>
  Effect.gen(function* () {
    const at = yield* now;
    const multipart = (yield* ObjectStore).multipart;
    const aborted: Array<IncompleteMultipartUpload> = [];
    let next: { readonly key: string; readonly upload_id: string } | null = null;
    if (multipart !== undefined) {
      const page = yield* multipart.listIncomplete({
        prefix: "files/",
        startedBefore: new Date(at.getTime() - orphanMultipartAgeMs),
        after: payload.after === null ? null : { key: payload.after.key, uploadId: payload.after.upload_id },
        limit: pageSize,
      });
      for (const upload of page.uploads) {
        if (!(yield* isOrphan(upload))) continue;
        yield* multipart.abort({ key: upload.key, uploadId: upload.uploadId });
        aborted.push(upload);
        const owner = sessionOfKey(upload.key)!;
        yield* (yield* Transactions).run(
          Effect.gen(function* () {
            yield* (yield* FilesAudit).append({
              id: yield* (yield* Ids).next,
              workspaceId: WorkspaceId.make(owner.workspaceId),
              actorId: orphanMultipartActor,
              action: "upload.orphan_aborted",
              targetId: owner.sessionId,
              reason: null,
              data: { store_upload_id: upload.uploadId, initiated_at: upload.initiatedAt.toISOString() },
              createdAt: at,
            });
          }),
        );
      }
      next = page.next === null ? null : { key: page.next.key, upload_id: page.next.uploadId };
    }
    if (next !== null) {
      yield* orphanMultipartCleanupJobType.schedule({ day: payload.day, after: next }, { runAt: at, key: `day-${payload.day}:after-${next.key}:${next.upload_id}` });
    } else {
      yield* scheduleOrphanMultipartCleanup(at.getTime());
    }
    return { aborted, next };
  }).pipe(withSpan("files.cleanOrphanMultipartUploads"));

/** The cleanup job a worker runs. */
export const orphanMultipartCleanupJob = orphanMultipartCleanupJobType.handledBy((payload) => Effect.asVoid(cleanOrphanMultipartUploads(payload)));
