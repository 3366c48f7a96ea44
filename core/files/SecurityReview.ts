/**
 * The security operator's work (spec: "quarantine metadata and controlled sample access"):
 * list quarantined, blocked and scan_failed versions across workspaces; release (publish) or
 * block one after review with a reason; and take a short-lived, reason-bearing sample grant of a
 * version that is not downloadable otherwise. Each action is audited in the transaction of its
 * effect (the sample grant is issued only after its audit entry committed).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed, type InvalidCursor } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import type { IllegalTransition } from "./Errors.js";
import type { FileVersion } from "./model/FileVersion.js";
import type { DownloadGrant } from "./RequestDownload.js";
import { applyVersionTrigger } from "./ScanVersion.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

const isOperator = (userId: string): Effect.Effect<boolean, never, FilesSettings> => Effect.map(FilesSettings, (s) => s.securityOperators.includes(userId));

/** The operator's list: a non-operator is refused (403: the list names no object). */
const requireOperator = (userId: string): Effect.Effect<void, Forbidden, FilesSettings> =>
  Effect.flatMap(isOperator(userId), (yes) => (yes ? Effect.void : Effect.fail(new Forbidden({ detail: "security operators only" }))));

/**
 * The operator's routes that name a version: a non-operator gets the 404 of an unknown version,
 * checked before the version is looked up, so an existing id answers like an unknown one
 * (spec: "An unknown object returns 404 where 403 would leak its existence").
 */
export const requireVersionOperator = (userId: string): Effect.Effect<void, NotFound, FilesSettings> =>
  Effect.flatMap(isOperator(userId), (yes) => (yes ? Effect.void : Effect.fail(new NotFound({ resource: "version" }))));

const requireReason = (reason: string): Effect.Effect<string, ValidationFailed> => {
  const trimmed = reason.trim();
  return trimmed.length >= 1 && trimmed.length <= 1000 ? Effect.succeed(trimmed) : Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "1 to 1000 characters" }] }));
};

const audit = (operatorId: string, version: FileVersion, action: string, reason: string) =>
  Effect.gen(function* () {
    yield* (yield* FilesAudit).append({
      id: yield* (yield* Ids).next,
      workspaceId: version.workspaceId,
      actorId: operatorId,
      action,
      targetId: version.id,
      reason,
      data: { node_id: version.nodeId, status: version.status },
      createdAt: yield* now,
    });
  });

/** Versions awaiting or failing review, across workspaces (keyset by id). */
export const listQuarantine = (input: { readonly operatorId: string; readonly cursor: string | null; readonly limit: number }): Effect.Effect<Page<FileVersion>, Forbidden | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    yield* requireOperator(input.operatorId);
    const after = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* VersionsRepository).listByStatus(["quarantined", "blocked", "scan_failed"], after, input.limit + 1);
    return pageFrom(rows, input.limit, (v) => [v.id]);
  }).pipe(withSpan("files.listQuarantine"));

/** Releases (publishes) or blocks a version after review, audited with the reason. */
export const reviewVersion = (input: {
  readonly operatorId: string;
  readonly workspaceId: string;
  readonly versionId: string;
  readonly decision: "release" | "block";
  readonly reason: string;
}): Effect.Effect<string, NotFound | ValidationFailed | IllegalTransition, FilesServices> =>
  Effect.gen(function* () {
    yield* requireVersionOperator(input.operatorId);
    const reason = yield* requireReason(input.reason);
    const version = yield* (yield* VersionsRepository).find(input.workspaceId, input.versionId);
    if (version === null) return yield* Effect.fail(new NotFound({ resource: "version" }));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const to = yield* applyVersionTrigger(version, input.decision === "release" ? "operator_release" : "operator_block", reason, input.operatorId);
        if (to !== "skipped") yield* audit(input.operatorId, version, `version.${input.decision}`, reason);
        return to;
      }),
    );
  }).pipe(withSpan("files.reviewVersion"));

/** A short-lived sample grant of any version, for review, audited with the reason before it is issued. */
export const sampleVersion = (input: {
  readonly operatorId: string;
  readonly workspaceId: string;
  readonly versionId: string;
  readonly reason: string;
}): Effect.Effect<DownloadGrant, NotFound | ValidationFailed, FilesServices> =>
  Effect.gen(function* () {
    yield* requireVersionOperator(input.operatorId);
    const reason = yield* requireReason(input.reason);
    const version = yield* (yield* VersionsRepository).find(input.workspaceId, input.versionId);
    if (version === null) return yield* Effect.fail(new NotFound({ resource: "version" }));
    yield* (yield* Transactions).run(audit(input.operatorId, version, "version.sample_access", reason));
    const grant = yield* (yield* ObjectStore).grantDownload({
      key: version.objectKey,
      contentType: "application/octet-stream",
      filename: `sample-${version.id}`,
      ttlMs: (yield* FilesSettings).downloadTtlMs,
    });
    return { url: grant.url, expiresAt: grant.expiresAt, version };
  }).pipe(withSpan("files.sampleVersion"));
