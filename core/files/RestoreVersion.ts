/**
 * Restoring an old version (spec: "restoring an old version makes it current again as a new
 * version"): an editor of the file names a published version of it; a new version with the next
 * number, the same bytes (same object, no new quota) and `restoredFromId` is published and made
 * current in one transaction with its change record and FileVersionPublished.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireAccess } from "./Access.js";
import { NotAFile, VersionQuarantined, type IllegalTransition } from "./Errors.js";
import type { FileVersion } from "./model/FileVersion.js";
import { FileVersionId } from "./model/Ids.js";
import { lockNamespaceWithAccess } from "./NamespaceLock.js";
import { applyVersionTrigger } from "./ScanVersion.js";
import type { FilesServices } from "./Services.js";
import { isDownloadable } from "./VersionStatus.js";
import { withSpan } from "../kernel/Span.js";

/** The trigger that publishes a restored copy at once: its bytes were already found clean. */
const restoredTrigger = "scan_clean" as const;

/** Makes an old published version current again as a new version. */
export const restoreVersion = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly versionId: string;
}): Effect.Effect<FileVersion, NotFound | Forbidden | NotAFile | VersionQuarantined | IllegalTransition, FilesServices> =>
  Effect.gen(function* () {
    const access = yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "edit");
    if (access.node.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: access.node.id }));
    const versions = yield* VersionsRepository;
    const old = yield* versions.find(input.workspaceId, input.versionId);
    if (old === null || old.nodeId !== access.node.id) return yield* Effect.fail(new NotFound({ resource: "version" }));
    if (!isDownloadable(old.status)) return yield* Effect.fail(new VersionQuarantined({ versionId: old.id, status: old.status, detail: `the version is ${old.status}` }));
    const id = FileVersionId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The editor's access is checked again under the lock (a revocation committed meanwhile).
        yield* lockNamespaceWithAccess(input.workspaceId, input.userId, input.nodeId, "edit");
        // Read again under the lock: a block of the original that committed meanwhile refuses the copy.
        const locked = yield* versions.find(input.workspaceId, old.id);
        if (locked === null || !isDownloadable(locked.status)) {
          return yield* Effect.fail(new VersionQuarantined({ versionId: old.id, status: locked?.status ?? old.status, detail: `the version is ${locked?.status ?? "gone"}` }));
        }
        const copy: FileVersion = {
          ...old,
          id,
          number: yield* versions.nextNumber(input.workspaceId, old.nodeId),
          status: "quarantined",
          isCurrent: false,
          uploadSessionId: null,
          restoredFromId: old.id,
          scanDetail: null,
          createdBy: input.userId,
          createdAt: yield* now,
          publishedAt: null,
        };
        yield* versions.insert(copy);
        yield* applyVersionTrigger(copy, restoredTrigger, `restored from version ${old.number}`, input.userId);
        return (yield* versions.find(input.workspaceId, id)) ?? copy;
      }),
    );
  }).pipe(withSpan("files.restoreVersion"));
