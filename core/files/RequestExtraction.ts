/**
 * `POST /v1/nodes/:id/extract {parent_id?}` (spec should-have: archive extraction): an editor of
 * the zip file who may create in the destination folder (by default the archive's own folder)
 * asks for its current published version to be unpacked there. The request is recorded
 * `queued` with its job in one transaction and answered 202; the job does the work
 * (ExtractArchive.ts). `GET /v1/extractions/:id` reads it back (its requester only).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { requireAccess, requireMember } from "./Access.js";
import { NoPublishedVersion, NodeTrashed, NotAFile, NotAFolder } from "./Errors.js";
import { extractionJobType } from "./ExtractionJobType.js";
import { ExtractionId, type Extraction } from "./model/Extraction.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** Records an extraction and queues its job. */
export const requestExtraction = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly parentId: string | null;
}): Effect.Effect<Extraction, NotFound | Forbidden | NotAFile | NotAFolder | NodeTrashed | NoPublishedVersion, FilesServices> =>
  Effect.gen(function* () {
    const archive = (yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "edit")).node;
    if (archive.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: archive.id }));
    if (archive.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: archive.id }));
    if (archive.currentVersionId === null) return yield* Effect.fail(new NoPublishedVersion({ nodeId: archive.id, detail: "the archive has no published version yet" }));
    const destinationId = input.parentId ?? archive.parentId;
    if (destinationId === null) return yield* Effect.fail(new NotFound({ resource: "node" }));
    const destination = (yield* requireAccess(input.workspaceId, input.userId, destinationId, "create_child")).node;
    if (destination.kind !== "folder") return yield* Effect.fail(new NotAFolder({ nodeId: destination.id }));
    if (destination.trashedAt !== null) return yield* Effect.fail(new NodeTrashed({ nodeId: destination.id }));
    const at = yield* now;
    const extraction: Extraction = {
      id: ExtractionId.make(yield* (yield* Ids).next),
      workspaceId: archive.workspaceId,
      archiveNodeId: archive.id,
      archiveVersionId: archive.currentVersionId,
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
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* ExtractionsRepository).insert(extraction);
        yield* extractionJobType.schedule({ workspace_id: extraction.workspaceId, extraction_id: extraction.id }, { runAt: at, key: extraction.id, maxAttempts: 3 });
      }),
    );
    return extraction;
  }).pipe(withSpan("files.requestExtraction"));

/** An extraction, for its requester (anyone else: 404). */
export const getExtraction = (input: { readonly userId: string; readonly workspaceId: string; readonly extractionId: string }): Effect.Effect<Extraction, NotFound, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "extraction" })));
    const extraction = yield* (yield* ExtractionsRepository).find(input.workspaceId, input.extractionId);
    if (extraction === null || extraction.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "extraction" }));
    return extraction;
  }).pipe(withSpan("files.getExtraction"));
