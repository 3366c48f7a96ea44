/**
 * `POST /v1/nodes/:id/extract {parent_id?}` (spec should-have: archive extraction): an editor of
 * the zip file who may create in the destination folder (by default the archive's own folder)
 * asks for its current published version to be unpacked there. The request is recorded
 * `queued` with its job in one transaction and answered 202; the job does the work
 * (ExtractArchive.ts). Access is checked before the transaction and again in it under the drive
 * lock (NamespaceLock.ts). `GET /v1/extractions/:id` reads it back (its requester only).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { requireAccess, requireMember, type NodeAccess, type NodeAction } from "./Access.js";
import { NoPublishedVersion, NodeTrashed, NotAFile, NotAFolder } from "./Errors.js";
import { extractionJobType } from "./ExtractionJobType.js";
import { ExtractionId, type Extraction } from "./model/Extraction.js";
import type { FileVersionId } from "./model/Ids.js";
import type { Node } from "./model/Node.js";
import { requireAccessUnderLock } from "./NamespaceLock.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The archive and the destination of a request, with `access` to resolve and authorize each. */
const requestedTargets = <R>(
  input: { readonly nodeId: string; readonly parentId: string | null },
  access: (nodeId: string, action: NodeAction) => Effect.Effect<NodeAccess, NotFound | Forbidden, R>,
): Effect.Effect<{ readonly archive: Node; readonly versionId: FileVersionId; readonly destination: Node }, NotFound | Forbidden | NotAFile | NotAFolder | NodeTrashed | NoPublishedVersion, R> =>
  Effect.gen(function* () {
    const archive = (yield* access(input.nodeId, "edit")).node;
    if (archive.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: archive.id }));
    if (archive.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: archive.id }));
    if (archive.currentVersionId === null) return yield* Effect.fail(new NoPublishedVersion({ nodeId: archive.id, detail: "the archive has no published version yet" }));
    const destinationId = input.parentId ?? archive.parentId;
    if (destinationId === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
    const destination = (yield* access(destinationId, "create_child")).node;
    if (destination.kind !== "folder") return yield* Effect.fail(new NotAFolder({ nodeId: destination.id }));
    if (destination.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: destination.id }));
    return { archive, versionId: archive.currentVersionId, destination };
  });

/** Records an extraction and queues its job. */
export const requestExtraction = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly parentId: string | null;
}): Effect.Effect<Extraction, NotFound | Forbidden | NotAFile | NotAFolder | NodeTrashed | NoPublishedVersion, FilesServices> =>
  Effect.gen(function* () {
    yield* requestedTargets(input, (nodeId, action) => requireAccess(input.workspaceId, input.userId, nodeId, action));
    const id = ExtractionId.make(yield* (yield* Ids).next);
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the drive lock, membership held: a revocation committed since the
        // check above is seen, and the request records what the caller may act on now.
        yield* (yield* DriveRepository).lock(input.workspaceId);
        const { archive, versionId, destination } = yield* requestedTargets(input, (nodeId, action) => requireAccessUnderLock(input.workspaceId, input.userId, nodeId, action));
        const extraction: Extraction = {
          id,
          workspaceId: archive.workspaceId,
          archiveNodeId: archive.id,
          archiveVersionId: versionId,
          parentId: destination.id,
          status: "queued",
          reservedBytes: 0,
          failureCode: null,
          failureDetail: null,
          fileCount: 0,
          folderCount: 0,
          extractedBytes: 0,
          createdBy: input.userId,
          createdAt: at,
          updatedAt: at,
          finishedAt: null,
        };
        yield* (yield* ExtractionsRepository).insert(extraction);
        yield* extractionJobType.schedule({ workspace_id: extraction.workspaceId, extraction_id: extraction.id }, { runAt: at, key: extraction.id, maxAttempts: 3 });
        return extraction;
      }),
    );
  }).pipe(withSpan("files.requestExtraction"));

/** An extraction, for its requester (anyone else: 404). */
export const getExtraction = (input: { readonly userId: string; readonly workspaceId: string; readonly extractionId: string }): Effect.Effect<Extraction, NotFound, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "extraction" })));
    const extraction = yield* (yield* ExtractionsRepository).find(input.workspaceId, input.extractionId);
    if (extraction === null || extraction.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "extraction" }));
    return extraction;
  }).pipe(withSpan("files.getExtraction"));
