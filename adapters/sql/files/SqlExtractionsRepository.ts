/** ExtractionsRepository over Kysely (both dialects). */
import { Effect } from "effect";
import { Extraction } from "../../../core/files/model/Extraction.js";
import type { ExtractionsRepository } from "../../../ports/files/ExtractionsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, runQuery, runStatement } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the extractions repository over `db`. */
export const makeSqlExtractionsRepository = (db: SqlDatabase): ExtractionsRepository => {
  const f = featuresFor(db);
  const extractions = rowCodec(Extraction, f);
  // The whole record's insert, compiled once.
  const insertExtraction = compiledInsert("fs_extractions", extractions);
  return {
    insert: (extraction) => Effect.asVoid(runStatement(db, insertExtraction, extraction)),
    workspaceOf: (id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_extractions").select("workspace_id").where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : String(row.workspace_id))),
      ),
    find: (workspaceId, id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_extractions").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : extractions.fromRow(row))),
      ),
    update: (extraction, expected) =>
      runQuery(db, (ex) => {
        const { id: _id, workspace_id: _ws, ...row } = extractions.toRow(extraction);
        return ex
          .updateTable("fs_extractions")
          .set(row)
          .where("workspace_id", "=", extraction.workspaceId)
          .where("id", "=", extraction.id)
          .where("status", "=", expected)
          .executeTakeFirst();
      }).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
  };
};
