/**
 * The archive extraction job (kind `files.archive_extraction`, keyed by extraction, 3 attempts).
 * 1. Checks, before anything is reserved or written: the requester may still create in the
 *    destination (an active folder), the archive's version still exists, the archive opens within
 *    `extractMaxArchiveBytes`, its entries pass ExtractionPlan.ts, and every file entry inflates
 *    to exactly its declared size (read once, counted, nothing kept: a header that lies is
 *    `size_mismatch`, however small it claims to be).
 * 2. Reserves the declared content against the quota under the drive lock, like an upload
 *    session (over quota: the extraction ends `failed` with `quota_exceeded`, nothing held).
 * 3. Writes each file's bytes server-side through ObjectStore.put (`files/<ws>/extractions/<id>/entry-<n>`).
 * 4. One transaction under the drive lock makes the folders and files (name conflicts: an
 *    existing folder of the same name is merged into, any other taken name gets " (2)", " (3)",
 *    … before its extension), stores each file's first version `quarantined` and queues its scan
 *    (never published unscanned), turns the reservation into used bytes and marks the extraction
 *    `succeeded` — all or nothing.
 * A failure after the reservation releases it once (conditional status update) and removes the
 * objects written — only when it is that failure which ended the extraction (another attempt
 * may have committed them as its files' versions). A retried attempt finds the extraction
 * running and carries on.
 */
import { Effect, Either, Option, Stream } from "effect";
import { now } from "../kernel/Clock.js";
import { reserve } from "../kernel/QuotaReservation.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore, type StoredObject } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { ArchiveReader, type OpenedArchive } from "../../ports/files/ArchiveReader.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { authorize, resolveAccess } from "./Access.js";
import { requireAccessUnderLock } from "./NamespaceLock.js";
import { contentTypeOf } from "./ContentTypes.js";
import { insertNode } from "./CreateFolder.js";
import { nameHolderUnder } from "./RootNames.js";
import { extractionJobType } from "./ExtractionJobType.js";
import { levelsBelow } from "./TreeDepth.js";
import { ExtractionRefused, planExtraction, type ExtractionPlanned, type PlannedFile } from "./ExtractionPlan.js";
import { quotaStateOf } from "./model/Drive.js";
import type { Extraction, ExtractionFailure, ExtractionStatus } from "./model/Extraction.js";
import type { FileVersion } from "./model/FileVersion.js";
import { FileVersionId, NodeId } from "./model/Ids.js";
import { newNode, type Node } from "./model/Node.js";
import { scanVersionJob } from "./ScanVersion.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The object key of an extracted entry. */
export const extractedObjectKey = (workspaceId: string, extractionId: string, index: number): string =>
  `files/${workspaceId}/extractions/${extractionId}/entry-${index}`;

/** Most " (n)" suffixes tried for one taken name. */
const maxSuffix = 10_000;

const refused = (code: ExtractionFailure, detail: string) => new ExtractionRefused({ code, detail });

/** A name free among the active children of `parentId` (at the root, those `holder` holds): `name`, else `stem (n).ext`. */
const freeName = (workspaceId: string, parentId: string, name: string, holder: string | null) =>
  Effect.gen(function* () {
    const nodes = yield* NodesRepository;
    const dot = name.lastIndexOf(".");
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
    for (let n = 1; n <= maxSuffix; n++) {
      const candidate = n === 1 ? name : `${stem} (${n})${ext}`;
      if (candidate.length <= 255 && (yield* nodes.findActiveChild(workspaceId, parentId, candidate, holder)) === null) return candidate;
    }
    return yield* Effect.die(new Error(`no free name for ${name} after ${maxSuffix} tries`));
  });

/** Ends an unfinished extraction `failed`, releasing its reservation once, and removes what it wrote. */
const failExtraction = (extraction: Extraction, reason: ExtractionRefused, writtenKeys: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const failedNow = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* DriveRepository).lock(extraction.workspaceId);
        const repo = yield* ExtractionsRepository;
        const current = yield* repo.find(extraction.workspaceId, extraction.id);
        if (current === null || (current.status !== "queued" && current.status !== "running")) return false;
        const at = yield* now;
        const failed: Extraction = { ...current, status: "failed", reservedBytes: 0, failureCode: reason.code, failureDetail: reason.detail, updatedAt: at, finishedAt: at };
        if (!(yield* repo.update(failed, current.status))) return false;
        if (current.reservedBytes > 0) yield* (yield* DriveRepository).adjust(current.workspaceId, { reserved: -current.reservedBytes, used: 0 }, at);
        return true;
      }),
    );
    // Finished by another attempt meanwhile: the objects are its files' versions now (or already
    // removed by its failure); answer the extraction as it is.
    if (!failedNow) {
      const settled = yield* (yield* ExtractionsRepository).find(extraction.workspaceId, extraction.id);
      return settled?.status ?? ("failed" as const satisfies ExtractionStatus);
    }
    const store = yield* ObjectStore;
    yield* Effect.forEach(writtenKeys, (key) => store.remove(key), { discard: true });
    return "failed" as const satisfies ExtractionStatus;
  });

/** Step 1: the destination, the archive and its plan, every entry's inflated size verified. */
const prepare = (extraction: Extraction) =>
  Effect.gen(function* () {
    const settings = yield* FilesSettings;
    const destination = yield* resolveAccess(extraction.workspaceId, extraction.createdBy, extraction.parentId).pipe(
      Effect.flatMap((access) => authorize(access, "create_child")),
      Effect.mapError(() => refused("destination_unavailable", "the destination is gone or the requester may no longer create in it")),
    );
    if (destination.node.kind !== "folder" || destination.node.trashedAt !== null) {
      return yield* Effect.fail(refused("destination_unavailable", "the destination is not an active folder"));
    }
    const version = yield* (yield* VersionsRepository).find(extraction.workspaceId, extraction.archiveVersionId);
    const content = version === null ? null : yield* (yield* ObjectStore).read(version.objectKey);
    if (content === null) return yield* Effect.fail(refused("archive_gone", "the archive's version is no longer stored"));
    const archive = yield* (yield* ArchiveReader).openZip(content, settings.extractMaxArchiveBytes).pipe(
      Effect.mapError((e) => refused(e.reason === "too_large" ? "archive_too_large" : "archive_unreadable", e.detail)),
    );
    // Every entry lands below the destination: its paths may be as deep as the levels left there
    // (FilesSettings.maxDepth from the root, TreeDepth.ts); deeper is unsafe_path.
    const plan = yield* planExtraction(archive.entries, { ...settings, maxDepth: Math.max(0, settings.maxDepth - destination.ancestors.length) });
    yield* Effect.forEach(plan.files, (file) =>
      Stream.runFold(archive.read(file.entry), 0, (n, chunk) => n + chunk.length).pipe(
        Effect.mapError((e) => refused(e.reason === "size_mismatch" ? "size_mismatch" : "archive_unreadable", `entry ${file.entry.index}: ${e.detail}`)),
        Effect.flatMap((inflated) =>
          inflated === file.sizeBytes
            ? Effect.void
            : Effect.fail(refused("size_mismatch", `entry ${file.entry.index} inflates to ${inflated} bytes, declared ${file.sizeBytes}`)),
        ),
      ),
    );
    return { archive, plan, destination: destination.node };
  });

/** Step 2: the reservation (or the running extraction of an earlier attempt); Left when over quota. */
const reserveContent = (extraction: Extraction, totalBytes: number) =>
  Effect.flatMap(Transactions, (tx) =>
    tx.run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        const drive = yield* drives.lock(extraction.workspaceId);
        const repo = yield* ExtractionsRepository;
        const current = yield* repo.find(extraction.workspaceId, extraction.id);
        if (drive === null || current === null) return Either.left(refused("destination_unavailable", "the drive is gone"));
        if (current.status === "running") return Either.right(current);
        if (current.status !== "queued") return Either.left(refused("archive_gone", `the extraction is already ${current.status}`));
        const held = yield* Effect.either(reserve(quotaStateOf(drive), current.id, totalBytes));
        if (Either.isLeft(held)) return Either.left(refused("quota_exceeded", `the archive holds ${totalBytes} bytes; the drive has ${drive.quotaBytes - drive.usedBytes - drive.reservedBytes} free`));
        const at = yield* now;
        const running: Extraction = { ...current, status: "running", reservedBytes: totalBytes, updatedAt: at };
        if (!(yield* repo.update(running, "queued"))) return Either.left(refused("archive_gone", "the extraction was settled meanwhile"));
        yield* drives.adjust(extraction.workspaceId, { reserved: totalBytes, used: 0 }, at);
        return Either.right(running);
      }),
    ),
  );

/** Step 3: each file's bytes into the store; a read failure here (the archive is in memory and verified) is a defect. */
const writeObjects = (extraction: Extraction, archive: OpenedArchive, files: ReadonlyArray<PlannedFile>) =>
  Effect.flatMap(ObjectStore, (store) =>
    Effect.forEach(files, (file) =>
      store
        .put(extractedObjectKey(extraction.workspaceId, extraction.id, file.entry.index), archive.read(file.entry).pipe(Stream.orDie))
        .pipe(Effect.map((stored): readonly [PlannedFile, StoredObject] => [file, stored])),
    ),
  );

/** Step 4: the folders, files and quarantined versions, the reservation turned into used bytes. */
const commitExtraction = (running: Extraction, plan: ExtractionPlanned, written: ReadonlyArray<readonly [PlannedFile, StoredObject]>) =>
  Effect.flatMap(Transactions, (tx) =>
    tx.run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        yield* drives.lock(running.workspaceId);
        const repo = yield* ExtractionsRepository;
        const current = yield* repo.find(running.workspaceId, running.id);
        if (current === null || current.status !== "running") return Either.right(current?.status ?? "failed");
        const nodes = yield* NodesRepository;
        // The requester's access again under the lock: a revocation committed since step 1 is seen.
        const destination = yield* Effect.option(requireAccessUnderLock(running.workspaceId, running.createdBy, running.parentId, "create_child"));
        if (Option.isNone(destination)) return Either.left(refused("destination_unavailable", "the requester may no longer create in the destination"));
        const parent = destination.value.node;
        if (parent.kind !== "folder" || parent.trashedAt !== null) {
          return Either.left(refused("destination_unavailable", "the destination was trashed or removed meanwhile"));
        }
        // The depth room again under the lock (the destination may have moved deeper since step 1).
        const deepest = Math.max(0, ...plan.folders.map((p) => p.length), ...plan.files.map((f) => f.path.length));
        if (deepest > (yield* levelsBelow(running.workspaceId, parent.id))) {
          return Either.left(refused("unsafe_path", "the destination moved too deep for the archive's paths meanwhile"));
        }
        const at = yield* now;
        const settings = yield* FilesSettings;
        const made = (fields: Pick<Node, "id" | "parentId" | "name" | "kind">): Node =>
          newNode({ ...fields, workspaceId: parent.workspaceId, createdBy: running.createdBy, createdAt: at });
        const folderIds = new Map<string, NodeId>([["", parent.id]]);
        const parentOf = (path: ReadonlyArray<string>): NodeId => folderIds.get(path.slice(0, -1).join("/")) ?? parent.id;
        // At the root the requester holds the names the extraction puts there (RootNames.ts).
        const holderUnder = (parentId: NodeId): string | null => (parentId === parent.id ? nameHolderUnder(parent, running.createdBy) : null);
        let folderCount = 0;
        for (const path of plan.folders) {
          const parentId = parentOf(path);
          const name = path[path.length - 1]!;
          const existing = yield* nodes.findActiveChild(running.workspaceId, parentId, name, holderUnder(parentId));
          if (existing !== null && existing.kind === "folder") {
            folderIds.set(path.join("/"), existing.id);
            continue;
          }
          const folder = made({ id: NodeId.make(yield* (yield* Ids).next), parentId, name: yield* freeName(running.workspaceId, parentId, name, holderUnder(parentId)), kind: "folder" });
          yield* insertNode(folder, parentId === parent.id && parent.parentId === null).pipe(Effect.orDie);
          folderIds.set(path.join("/"), folder.id);
          folderCount++;
        }
        const versions = yield* VersionsRepository;
        let bytes = 0;
        for (const [file, stored] of written) {
          const parentId = parentOf(file.path);
          const name = yield* freeName(running.workspaceId, parentId, file.path[file.path.length - 1]!, holderUnder(parentId));
          const node = made({ id: NodeId.make(yield* (yield* Ids).next), parentId, name, kind: "file" });
          yield* insertNode(node, parentId === parent.id && parent.parentId === null).pipe(Effect.orDie);
          const version: FileVersion = {
            id: FileVersionId.make(yield* (yield* Ids).next),
            workspaceId: node.workspaceId,
            nodeId: node.id,
            number: 1,
            sizeBytes: stored.size,
            sha256: stored.sha256,
            contentType: contentTypeOf(name),
            detectedContentType: null,
            objectKey: stored.key,
            status: "quarantined",
            isCurrent: false,
            uploadSessionId: null,
            restoredFromId: null,
            scanDetail: null,
            createdBy: running.createdBy,
            createdAt: at,
            publishedAt: null,
          };
          yield* versions.insert(version);
          yield* scanVersionJob.schedule({ workspace_id: version.workspaceId, version_id: version.id }, { runAt: at, key: version.id, maxAttempts: settings.scanMaxAttempts });
          bytes += stored.size;
        }
        yield* drives.adjust(running.workspaceId, { reserved: -current.reservedBytes, used: bytes }, at);
        const succeeded: Extraction = {
          ...current,
          status: "succeeded",
          reservedBytes: 0,
          fileCount: written.length,
          folderCount,
          extractedBytes: bytes,
          updatedAt: at,
          finishedAt: at,
        };
        yield* repo.update(succeeded, "running");
        return Either.right(succeeded.status);
      }),
    ),
  );

/** Runs an extraction to its end; answers its final status (null when there is none). */
export const runExtraction = (workspaceId: string, extractionId: string): Effect.Effect<ExtractionStatus | null, never, FilesServices> =>
  Effect.gen(function* () {
    const extraction = yield* (yield* ExtractionsRepository).find(workspaceId, extractionId);
    if (extraction === null) return null;
    if (extraction.status === "succeeded" || extraction.status === "failed") return extraction.status;
    const prepared = yield* Effect.either(prepare(extraction));
    if (Either.isLeft(prepared)) return yield* failExtraction(extraction, prepared.left, []);
    const { archive, plan } = prepared.right;
    const reserved = yield* reserveContent(extraction, plan.totalBytes);
    if (Either.isLeft(reserved)) return yield* failExtraction(extraction, reserved.left, []);
    const plannedKeys = plan.files.map((file) => extractedObjectKey(extraction.workspaceId, extraction.id, file.entry.index));
    // A store that fails mid-way ends the extraction (its reservation released) instead of leaving it running.
    const attempt = yield* Effect.either(
      writeObjects(reserved.right, archive, plan.files).pipe(
        Effect.catchAllDefect((defect) => Effect.fail(refused("archive_unreadable", `writing the entries failed: ${String(defect)}`))),
      ),
    );
    if (Either.isLeft(attempt)) return yield* failExtraction(reserved.right, attempt.left, plannedKeys);
    const written = attempt.right;
    // Every written object, sized as verified, or the extraction fails and they go.
    const keys = written.map(([, stored]) => stored.key);
    const wrongSize = written.find(([file, stored]) => stored.size !== file.sizeBytes);
    if (wrongSize !== undefined) return yield* failExtraction(reserved.right, refused("size_mismatch", `entry ${wrongSize[0].entry.index} stored ${wrongSize[1].size} bytes`), keys);
    const committed = yield* commitExtraction(reserved.right, plan, written);
    if (Either.isLeft(committed)) return yield* failExtraction(reserved.right, committed.left, keys);
    return committed.right;
  }).pipe(withSpan("files.runExtraction"));

export const extractionJob = extractionJobType.handledBy((payload) => Effect.asVoid(runExtraction(payload.workspace_id, payload.extraction_id)));
