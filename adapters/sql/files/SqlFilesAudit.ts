/** FilesAudit over Kysely (both dialects); the table refuses UPDATE and DELETE. */
import { Effect } from "effect";
import { AuditEntry } from "../../../core/files/model/AuditEntry.js";
import type { FilesAudit } from "../../../ports/files/FilesAudit.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the audit trail over `db`. */
export const makeSqlFilesAudit = (db: SqlDatabase): FilesAudit => {
  const entries = rowCodec(AuditEntry, featuresFor(db));
  return {
    append: (entry) => Effect.asVoid(runQuery(db, (ex) => ex.insertInto("fs_audit").values(entries.toRow(entry)).execute())),
    list: (workspaceId, limit) =>
      runQuery(db, (ex) => ex.selectFrom("fs_audit").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at").orderBy("id").limit(limit).execute()).pipe(
        Effect.map((rows) => rows.map(entries.fromRow)),
      ),
  };
};
