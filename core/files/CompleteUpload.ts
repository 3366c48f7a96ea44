/**
 * `POST /v1/uploads/:id/complete {sha256}` (spec: "Verify the object and queue a scan"; keyed by
 * session and checksum). The session's owner completes it: the stored parts are checked through
 * the ObjectStore, a multi-part upload is assembled into one object keyed by the session (a retry
 * writes the same bytes) — by the store itself when it has native multipart (the parts the client
 * reported, with their ETags; `parts` in the body reports any not reported yet), else by reading
 * the part objects — and the stored size and SHA-256 must equal the declared ones — else
 * 422 and the session fails, releasing its reservation once. Then one transaction settles the
 * session (conditional: only one complete wins), turns the reservation into used bytes, creates
 * the file node for a new file (409 name_taken if the name was taken meanwhile; the session
 * stays open), stores the quarantined version, appends UploadFinalized and queues the scan.
 * A repeated complete with the same checksum answers the same version; another checksum, or a
 * session that is aborted, expired or failed, is 409. The owner must still be allowed to do what opening
 * the session needed (create in the folder, or edit the file): else 404 (or 403 when they still
 * see it), and the session stays open.
 */
import { Effect, Stream } from "effect";
import { now } from "../kernel/Clock.js";
import { NotFound, type Forbidden, type ValidationFailed } from "../kernel/Errors.js";
import { commit } from "../kernel/QuotaReservation.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { ObjectStore, type StoredObject } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireMember } from "./Access.js";
import { mayStillUpload, mayStillUploadUnderLock } from "./UploadAccess.js";
import { insertNode, requireFreeName } from "./CreateFolder.js";
import {
  ChecksumMismatch,
  NameTaken,
  NodeTrashed,
  NotAFile,
  NotAFolder,
  SizeMismatch,
  UploadCompletedDifferently,
  UploadIncomplete,
  UploadNotOpen,
  type TreeTooDeep,
} from "./Errors.js";
import { UploadFinalized } from "./Events.js";
import { quotaStateOf } from "./model/Drive.js";
import type { FileVersion } from "./model/FileVersion.js";
import { FileVersionId, NodeId } from "./model/Ids.js";
import { newNode, type Node } from "./model/Node.js";
import type { UploadPart, UploadSession } from "./model/UploadSession.js";
import { assembledKey } from "./ObjectKeys.js";
import { scanVersionJob } from "./ScanVersion.js";
import type { FilesServices } from "./Services.js";
import { recordReportedParts, type ReportedPart } from "./ReportUploadPart.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";
import { scheduleObjectRemoval, scheduleObjectRemovalAfterGrants } from "./ObjectRemoval.js";
import { settleWithoutVersion } from "./SettleUpload.js";
import { requireRoomBelow } from "./TreeDepth.js";
import { withSpan } from "../kernel/Span.js";

/** Errors a complete may answer. */
export type CompleteUploadError =
  | NotFound
  | Forbidden
  | ValidationFailed
  | ChecksumMismatch
  | SizeMismatch
  | UploadNotOpen
  | UploadCompletedDifferently
  | UploadIncomplete
  | NameTaken
  | NotAFolder
  | NotAFile
  | NodeTrashed
  | TreeTooDeep;

/** The answer to a complete of a session that is no longer open. */
const settledAnswer = (session: UploadSession, sha256: string): Effect.Effect<FileVersion, CompleteUploadError, VersionsRepository> =>
  Effect.gen(function* () {
    if (session.status === "completed" && session.versionId !== null) {
      if (session.sha256 !== sha256) return yield* Effect.fail(new UploadCompletedDifferently({ detail: "the upload was completed with another checksum" }));
      const version = yield* (yield* VersionsRepository).find(session.workspaceId, session.versionId);
      if (version === null) return yield* Effect.die(new Error(`completed upload ${session.id} has no version ${session.versionId}`));
      return version;
    }
    return yield* Effect.fail(new UploadNotOpen({ status: session.status, detail: `the upload is ${session.status}` }));
  });

/**
 * The object a native multipart upload became: assembled by the store from the reported parts;
 * on a retry after the store completed it (a lost response), the object already there.
 */
const assembledByStore = (session: UploadSession, uploadId: string, parts: ReadonlyArray<UploadPart>): Effect.Effect<StoredObject, UploadIncomplete, ObjectStore> =>
  Effect.gen(function* () {
    const store = yield* ObjectStore;
    const multipart = store.multipart;
    if (multipart === undefined) return yield* Effect.dieMessage(`upload ${session.id} is a multipart upload, but the configured ObjectStore has no multipart`);
    const key = assembledKey(session.workspaceId, session.id);
    const existing = yield* store.stat(key);
    if (existing !== null) return existing;
    const missing = parts.filter((p) => p.etag === null).map((p) => p.partNumber);
    if (missing.length > 0) return yield* Effect.fail(new UploadIncomplete({ missingParts: missing, detail: `parts ${missing.join(", ")} were not reported as stored yet` }));
    return yield* multipart.complete({ key, uploadId, parts: parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag ?? "" })) }).pipe(
      Effect.catchTag("MultipartRejected", (e) =>
        Effect.fail(new UploadIncomplete({ missingParts: [], detail: `the store refused to assemble the reported parts (${e.detail}); send and report them again` })),
      ),
    );
  });

/** The object holding the whole file: the single part, or the parts assembled under the session's key. */
const storedObject = (session: UploadSession, parts: ReadonlyArray<UploadPart>): Effect.Effect<StoredObject, UploadIncomplete | ChecksumMismatch, ObjectStore> =>
  Effect.gen(function* () {
    if (session.storeUploadId !== null) return yield* assembledByStore(session, session.storeUploadId, parts);
    const store = yield* ObjectStore;
    const stats = yield* Effect.forEach(parts, (p) => store.stat(p.objectKey));
    const missing = parts.filter((_, i) => stats[i] === null).map((p) => p.partNumber);
    if (missing.length > 0) return yield* Effect.fail(new UploadIncomplete({ missingParts: missing, detail: `parts ${missing.join(", ")} are not stored yet` }));
    // The store binds each part to its size and SHA-256; a part that differs was not stored by our grant.
    if (parts.some((p, i) => stats[i]!.size !== p.sizeBytes || stats[i]!.sha256 !== p.sha256)) {
      return yield* Effect.fail(new ChecksumMismatch({ detail: "a stored part does not match its declared size and checksum" }));
    }
    if (parts.length === 1) return stats[0]!;
    const key = assembledKey(session.workspaceId, session.id);
    const existing = yield* store.stat(key);
    if (existing !== null && existing.size === session.sizeBytes && existing.sha256 === session.sha256) return existing;
    const content = Stream.flatMap(
      Stream.fromIterable(parts),
      (p) => Stream.unwrap(Effect.map(store.read(p.objectKey), (s) => s ?? Stream.die(new Error(`part ${p.partNumber} vanished`)))),
    );
    return yield* store.put(key, content);
  });

/** Completes an upload. */
export const completeUpload = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly uploadId: string;
  readonly sha256: string;
  /** Parts received but not reported yet (native multipart), with the ETags the store answered. */
  readonly parts?: ReadonlyArray<ReportedPart>;
}): Effect.Effect<FileVersion, CompleteUploadError, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "upload" })));
    const uploads = yield* UploadsRepository;
    const session = yield* uploads.find(input.workspaceId, input.uploadId);
    if (session === null || session.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "upload" }));
    if (session.status !== "open") return yield* settledAnswer(session, input.sha256);
    // An expired session is removed, not completed (spec States): settle it as the expiry job
    // would (objects deleted, reservation released once) and refuse like any settled session.
    if ((yield* now).getTime() >= session.expiresAt.getTime()) {
      yield* settleWithoutVersion(session, "expire");
      return yield* Effect.fail(new UploadNotOpen({ status: "expired", detail: "the upload expired" }));
    }
    if (input.sha256 !== session.sha256) {
      return yield* Effect.fail(new ChecksumMismatch({ detail: "the checksum differs from the one the upload was created with" }));
    }
    // The access opening needed, still held (checked again under the lock below): a revoked
    // editor's session lands nothing and stays open (its expiry releases it).
    yield* mayStillUpload(session);
    if (input.parts !== undefined && input.parts.length > 0) yield* recordReportedParts(input.workspaceId, session.id, input.parts);
    const parts = yield* uploads.parts(input.workspaceId, session.id);
    // Copied into the assembled object once the version is written (a single part is the version's object).
    const partsToRemove = parts.length > 1 && session.storeUploadId === null ? parts.map((p) => p.objectKey) : [];
    const read = yield* storedObject(session, parts).pipe(
      Effect.map((object): { readonly object: StoredObject; readonly settled: null } | { readonly object: null; readonly settled: UploadSession } => ({ object, settled: null })),
      Effect.tapErrorTag("ChecksumMismatch", () => settleWithoutVersion(session, "fail_verification")),
      // A concurrent complete that won meanwhile removed the parts after its commit: answer as
      // for a settled session (the same version for the same checksum), not upload_incomplete.
      Effect.catchTag("UploadIncomplete", (incomplete) =>
        Effect.flatMap(uploads.find(input.workspaceId, session.id), (current) =>
          current !== null && current.status !== "open" ? Effect.succeed({ object: null, settled: current }) : Effect.fail(incomplete),
        ),
      ),
      // The same when the winner removed a part this complete was still assembling from: the
      // store's put died (writing nothing over the version's object); answer the settled session.
      Effect.catchAllDefect((defect) =>
        Effect.flatMap(uploads.find(input.workspaceId, session.id), (current) =>
          current !== null && current.status !== "open" ? Effect.succeed({ object: null, settled: current }) : Effect.die(defect),
        ),
      ),
    );
    if (read.settled !== null) return yield* settledAnswer(read.settled, input.sha256);
    const stored = read.object;
    if (stored.size !== session.sizeBytes) {
      yield* settleWithoutVersion(session, "fail_verification");
      return yield* Effect.fail(new SizeMismatch({ detail: `stored ${stored.size} bytes, declared ${session.sizeBytes}` }));
    }
    if (stored.sha256 !== session.sha256) {
      yield* settleWithoutVersion(session, "fail_verification");
      return yield* Effect.fail(new ChecksumMismatch({ detail: "the stored bytes do not match the declared SHA-256" }));
    }

    const versionId = FileVersionId.make(yield* (yield* Ids).next);
    const newNodeId = NodeId.make(yield* (yield* Ids).next);
    const settings = yield* FilesSettings;
    const outcome = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        const drive = yield* drives.lock(input.workspaceId);
        if (drive === null) return yield* Effect.fail(new NotFound({ resource: "drive" }));
        // Under the lock grants and revocations take too: a revocation committed before this
        // point is seen (spec: namespace and ACL are transactional); the membership held until the commit.
        yield* mayStillUploadUnderLock(session);
        const at = yield* now;
        const bytes = yield* uploads.settle({ workspaceId: input.workspaceId, id: session.id, to: "completed", versionId, at });
        if (bytes === null) {
          // Another complete (or the expiry) settled it first: answer as for a settled session.
          const current = yield* uploads.find(input.workspaceId, session.id);
          return { settled: current ?? session, version: null };
        }
        const after = yield* commit(quotaStateOf(drive, { id: session.id, bytes }), session.id).pipe(Effect.orDie);
        yield* drives.adjust(input.workspaceId, { reserved: after.reserved - drive.reservedBytes, used: after.used - drive.usedBytes }, at);

        const nodes = yield* NodesRepository;
        let node: Node;
        if (session.nodeId !== null) {
          const file = yield* nodes.find(input.workspaceId, session.nodeId);
          if (file === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
          if (file.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: file.id }));
          if (file.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: file.id }));
          node = file;
        } else {
          const parent = yield* nodes.find(input.workspaceId, session.parentId);
          if (parent === null) return yield* Effect.fail(new NodeTrashed({ nodeId: session.parentId }));
          yield* requireFreeName(input.workspaceId, parent, session.name, input.userId);
          // Checked at creation too; the parent may have been moved deeper since.
          yield* requireRoomBelow(input.workspaceId, parent.id, 0);
          const file = newNode({ id: newNodeId, workspaceId: session.workspaceId, parentId: parent.id, name: session.name, kind: "file", createdBy: input.userId, createdAt: at });
          node = yield* insertNode(file, parent.parentId === null);
        }
        const versions = yield* VersionsRepository;
        const version: FileVersion = {
          id: versionId,
          workspaceId: session.workspaceId,
          nodeId: node.id,
          number: yield* versions.nextNumber(input.workspaceId, node.id),
          sizeBytes: stored.size,
          sha256: stored.sha256,
          contentType: session.contentType,
          detectedContentType: null,
          objectKey: stored.key,
          status: "quarantined",
          isCurrent: false,
          uploadSessionId: session.id,
          restoredFromId: null,
          scanDetail: null,
          createdBy: input.userId,
          createdAt: at,
          publishedAt: null,
        };
        yield* versions.insert(version);
        const event = yield* UploadFinalized.make({
          tenant_id: input.workspaceId,
          aggregate_id: version.id,
          aggregate_version: 1,
          actor_id: input.userId,
          data: {
            version_id: version.id,
            node_id: node.id,
            upload_id: session.id,
            number: version.number,
            size_bytes: version.sizeBytes,
            sha256: version.sha256,
            content_type: version.contentType,
          },
        });
        yield* (yield* Outbox).append([event]);
        yield* scanVersionJob.schedule({ workspace_id: input.workspaceId, version_id: version.id }, { runAt: at, key: version.id, maxAttempts: settings.scanMaxAttempts });
        // The part objects are removed below, after commit; this job removes them if that fails.
        if (partsToRemove.length > 0) {
          yield* scheduleObjectRemoval(`upload:${session.id}`, partsToRemove, at);
          // The part grants outlive the session: what they store meanwhile goes once they expired.
          yield* scheduleObjectRemovalAfterGrants(`upload:${session.id}`, partsToRemove, session.expiresAt, at);
        }
        return { settled: null, version };
      }),
    );
    if (outcome.version === null) return yield* settledAnswer(outcome.settled, input.sha256);
    // The parts were copied into the assembled object; the single part is the version's object.
    // (A native multipart upload leaves no part objects: the store consumed them.)
    if (partsToRemove.length > 0) {
      const store = yield* ObjectStore;
      // The version is committed and is the answer; the removal job scheduled with it retries.
      yield* followUpOfCommitted(Effect.forEach(partsToRemove, (key) => store.remove(key), { discard: true }), "files: removing an upload's parts", { upload_id: session.id });
    }
    return outcome.version;
  }).pipe(withSpan("files.completeUpload"));

