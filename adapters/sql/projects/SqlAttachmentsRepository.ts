/** The AttachmentsRepository port over `pm_attachments`; status moves are conditional updates. */
import { Effect } from "effect";
import { sql } from "kysely";
import { Attachment } from "../../../core/projects/model/Attachment.js";
import type { AttachmentsRepository } from "../../../ports/projects/AttachmentsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { compiledInsert, runQuery, runStatement } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the attachment repository over `db`. */
export const makeSqlAttachmentsRepository = (db: SqlDatabase): AttachmentsRepository => {
  const f = featuresFor(db);
  const attachments = rowCodec(Attachment, f);
  const insertAttachmentRow = compiledInsert("pm_attachments", attachments);
  return {
    insertAttachment: (a) =>
      runStatement(db, insertAttachmentRow, a).pipe(Effect.asVoid, withSpan("AttachmentsRepository.insertAttachment")),
    findAttachment: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_attachments").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : attachments.fromRow(r))),
      ),
    listAttachments: ({ taskId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_attachments").selectAll().where("task_id", "=", taskId).where("status", "<>", "purging");
        if (afterId !== undefined) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => attachments.fromRow(r)))),
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
        withSpan("AttachmentsRepository.transition"),
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
        withSpan("AttachmentsRepository.settleThumbnail"),
      ),
    expiredUploads: (cutoff, limit) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_attachments")
          .selectAll()
          // Literals, the partial index's own predicate: with bound values neither SQLite nor a
          // cached generic plan on Postgres can use pm_attachments_staging, and every sweep read
          // every attachment ever uploaded.
          .where("status", "in", [sql.lit("pending"), sql.lit("purging")])
          .where("upload_expires_at", "<", f.timeToDb(cutoff))
          .orderBy("upload_expires_at")
          .orderBy("id")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => attachments.fromRow(r)))),
    quarantinedContent: (cutoff, limit) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_attachments")
          .selectAll()
          // Literals, the partial index's own predicate (pm_attachments_quarantine_expiry, migration 18).
          .where("status", "in", [sql.lit("infected"), sql.lit("scan_failed")])
          .where("content_purged_at", "is", null)
          .where("scanned_at", "<", f.timeToDb(cutoff))
          .orderBy("scanned_at")
          .orderBy("id")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => attachments.fromRow(r)))),
    markContentPurged: (id, at) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_attachments")
          .set({ content_purged_at: f.timeToDb(at) })
          .where("id", "=", id)
          .where("status", "in", ["infected", "scan_failed"])
          .where("content_purged_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    deletePurging: (id) =>
      runQuery(db, (ex) => ex.deleteFrom("pm_attachments").where("id", "=", id).where("status", "=", "purging").executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numDeletedRows) === 1),
      ),
  };
};
