/** The AttachmentsRepository port over `pm_attachments`; status moves are conditional updates. */
import { Effect } from "effect";
import type { Attachment, AttachmentThumbnail } from "../../../core/projects/AttachmentRecord.js";
import type { AttachmentsRepository } from "../../../ports/projects/AttachmentsRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const timeOrNull = (f: DialectFeatures, value: unknown): Date | null => (value === null || value === undefined ? null : f.timeFromDb(value));

const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toNumber(value));

/** The thumbnail columns (migration 7) of a row; null when no thumbnail state was decided. */
const thumbnailFromRow = (r: any): AttachmentThumbnail | null =>
  r.thumbnail_status === null || r.thumbnail_status === undefined
    ? null
    : {
        status: r.thumbnail_status,
        objectKey: textOrNull(r.thumbnail_key),
        contentType: textOrNull(r.thumbnail_content_type),
        width: numberOrNull(r.thumbnail_width),
        height: numberOrNull(r.thumbnail_height),
        detail: textOrNull(r.thumbnail_detail),
      };

/** A `pm_attachments` row as a record. */
export const attachmentFromRow = (f: DialectFeatures, r: any): Attachment => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  taskId: String(r.task_id),
  uploadedBy: String(r.uploaded_by),
  filename: String(r.filename),
  contentType: String(r.content_type),
  size: toNumber(r.size),
  sha256: String(r.sha256),
  objectKey: String(r.object_key),
  status: r.status,
  scanDetail: r.scan_detail === null || r.scan_detail === undefined ? null : String(r.scan_detail),
  uploadExpiresAt: f.timeFromDb(r.upload_expires_at),
  completedAt: timeOrNull(f, r.completed_at),
  scannedAt: timeOrNull(f, r.scanned_at),
  createdAt: f.timeFromDb(r.created_at),
  thumbnail: thumbnailFromRow(r),
});

/** Builds the attachment repository over `db`. */
export const makeSqlAttachmentsRepository = (db: SqlDatabase): AttachmentsRepository => {
  const f = featuresFor(db);
  return {
    insertAttachment: (a) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_attachments")
          .values({
            id: a.id,
            workspace_id: a.workspaceId,
            project_id: a.projectId,
            task_id: a.taskId,
            uploaded_by: a.uploadedBy,
            filename: a.filename,
            content_type: a.contentType,
            size: a.size,
            sha256: a.sha256,
            object_key: a.objectKey,
            status: a.status,
            scan_detail: a.scanDetail,
            upload_expires_at: f.timeToDb(a.uploadExpiresAt),
            completed_at: a.completedAt === null ? null : f.timeToDb(a.completedAt),
            scanned_at: a.scannedAt === null ? null : f.timeToDb(a.scannedAt),
            created_at: f.timeToDb(a.createdAt),
          })
          .execute(),
      ).pipe(Effect.asVoid, Effect.withSpan("AttachmentsRepository.insertAttachment")),
    findAttachment: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_attachments").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : attachmentFromRow(f, r))),
      ),
    listAttachments: ({ taskId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_attachments").selectAll().where("task_id", "=", taskId).where("status", "<>", "purging");
        if (afterId !== undefined) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => attachmentFromRow(f, r)))),
    transition: ({ id, from, to, scanDetail, completedAt, scannedAt, thumbnail }) =>
      runQuery(db, (ex) => {
        const set: Record<string, unknown> = { status: to };
        if (thumbnail !== undefined) {
          set.thumbnail_status = thumbnail.status;
          set.thumbnail_detail = thumbnail.detail ?? null;
        }
        if (scanDetail !== undefined) set.scan_detail = scanDetail;
        if (completedAt !== undefined) set.completed_at = f.timeToDb(completedAt);
        if (scannedAt !== undefined) set.scanned_at = f.timeToDb(scannedAt);
        return ex.updateTable("pm_attachments").set(set).where("id", "=", id).where("status", "in", [...from]).executeTakeFirst();
      }).pipe(
        Effect.map((r) => Number(r.numUpdatedRows) === 1),
        Effect.withSpan("AttachmentsRepository.transition"),
      ),
    settleThumbnail: ({ id, status, objectKey, contentType, width, height, detail }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_attachments")
          .set({
            thumbnail_status: status,
            thumbnail_key: objectKey ?? null,
            thumbnail_content_type: contentType ?? null,
            thumbnail_width: width ?? null,
            thumbnail_height: height ?? null,
            thumbnail_detail: detail ?? null,
          })
          .where("id", "=", id)
          .where("status", "=", "clean")
          .where("thumbnail_status", "=", "pending")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => Number(r.numUpdatedRows) === 1),
        Effect.withSpan("AttachmentsRepository.settleThumbnail"),
      ),
    expiredUploads: (cutoff, limit) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_attachments")
          .selectAll()
          .where("status", "in", ["pending", "purging"])
          .where("upload_expires_at", "<", f.timeToDb(cutoff))
          .orderBy("upload_expires_at")
          .orderBy("id")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => attachmentFromRow(f, r)))),
    deletePurging: (id) =>
      runQuery(db, (ex) => ex.deleteFrom("pm_attachments").where("id", "=", id).where("status", "=", "purging").executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numDeletedRows) === 1),
      ),
  };
};
