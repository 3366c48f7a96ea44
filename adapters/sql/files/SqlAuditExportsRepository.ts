/** AuditExportsRepository over Kysely (both dialects). */
import { Effect } from "effect";
import { AuditExport } from "../../../core/files/model/AuditExport.js";
import type { AuditExportsRepository } from "../../../ports/files/AuditExportsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the audit exports repository over `db`. */
export const makeSqlAuditExportsRepository = (db: SqlDatabase): AuditExportsRepository => {
  const f = featuresFor(db);
  const exports = rowCodec(AuditExport, f);
  // The whole record's insert, compiled once.
  const insertExport = compiledInsert("fs_audit_exports", exports);
  return {
    insert: (audit) => Effect.asVoid(runStatement(db, insertExport, audit)),
    find: (workspaceId, id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_audit_exports").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : exports.fromRow(row))),
      ),
    finish: (audit) =>
      runQuery(db, (ex) => {
        const { id: _id, workspace_id: _ws, ...row } = exports.toRow(audit);
        return ex
          .updateTable("fs_audit_exports")
          .set(row)
          .where("workspace_id", "=", audit.workspaceId)
          .where("id", "=", audit.id)
          .where("status", "=", "pending")
          .executeTakeFirst();
      }).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    markObjectRemoval: (workspaceId, id, removalAt) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_audit_exports")
          .set({ object_removal_at: f.timeToDb(removalAt) })
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .where("status", "=", "done")
          .where("object_removal_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    withoutObjectRemoval: (before, limit) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_audit_exports")
          .selectAll()
          .where("status", "=", "done")
          .where("object_removal_at", "is", null)
          .where("completed_at", "<", f.timeToDb(before))
          .orderBy("completed_at")
          .orderBy("id")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(exports.fromRow))),
  };
};
