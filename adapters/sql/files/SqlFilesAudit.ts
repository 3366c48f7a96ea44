/** FilesAudit over Kysely (both dialects); the table refuses UPDATE and DELETE. */
import { Effect } from "effect";
import { AuditEntry } from "../../../core/files/model/AuditEntry.js";
import type { FilesAudit } from "../../../ports/files/FilesAudit.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery, sendStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the audit trail over `db`. */
export const makeSqlFilesAudit = (db: SqlDatabase): FilesAudit => {
  const f = featuresFor(db);
  const entries = rowCodec(AuditEntry, f);
  // The append of every audited write, compiled once.
  const insertEntry = compiledInsert("fs_audit", entries);
  return {
    append: (entry) => sendStatement(db, insertEntry, entry),
    list: (workspaceId, limit) =>
      runQuery(db, (ex) => ex.selectFrom("fs_audit").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at").orderBy("id").limit(limit).execute()).pipe(
        Effect.map((rows) => rows.map(entries.fromRow)),
      ),
    page: (workspaceId, after, limit) =>
      runQuery(db, (ex) => {
        const q = ex.selectFrom("fs_audit").selectAll().where("workspace_id", "=", workspaceId);
        const paged =
          after === null
            ? q
            : q.where((eb) => eb.or([eb("created_at", ">", f.timeToDb(after[0])), eb.and([eb("created_at", "=", f.timeToDb(after[0])), eb("id", ">", after[1])])]));
        return paged.orderBy("created_at").orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(entries.fromRow))),
  };
};
