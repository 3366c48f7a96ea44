/** UploadsRepository over Kysely (both dialects): settling is one conditional update from `open`. */
import { Effect } from "effect";
import { UploadPart, UploadSession } from "../../../core/files/model/UploadSession.js";
import type { UploadsRepository } from "../../../ports/files/UploadsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the uploads repository over `db`. */
export const makeSqlUploadsRepository = (db: SqlDatabase): UploadsRepository => {
  const f = featuresFor(db);
  const sessions = rowCodec(UploadSession, f);
  const parts = rowCodec(UploadPart, f);
  return {
    insert: (session, sessionParts) =>
      Effect.asVoid(
        runQuery(db, async (ex) => {
          await ex.insertInto("fs_upload_sessions").values(sessions.toRow(session)).execute();
          if (sessionParts.length > 0) await ex.insertInto("fs_upload_parts").values(sessionParts.map(parts.toRow)).execute();
        }),
      ),
    workspaceOf: (id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_upload_sessions").select("workspace_id").where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : String(row.workspace_id))),
      ),
    find: (workspaceId, id) =>
      runQuery(db, (ex) => ex.selectFrom("fs_upload_sessions").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : sessions.fromRow(row))),
      ),
    parts: (workspaceId, sessionId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("fs_upload_parts").selectAll().where("workspace_id", "=", workspaceId).where("session_id", "=", sessionId).orderBy("part_number").execute(),
      ).pipe(Effect.map((rows) => rows.map(parts.fromRow))),
    recordPart: (req) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_upload_parts")
          .set({ etag: req.etag })
          .where("workspace_id", "=", req.workspaceId)
          .where("session_id", "=", req.sessionId)
          .where("part_number", "=", req.partNumber)
          .executeTakeFirst(),
      ).pipe(Effect.map((result) => Number(result.numUpdatedRows) > 0)),
    settle: (req) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_upload_sessions")
          .set({ status: req.to, reserved_bytes: 0, version_id: req.versionId, updated_at: f.timeToDb(req.at) })
          .where("workspace_id", "=", req.workspaceId)
          .where("id", "=", req.id)
          .where("status", "=", "open")
          .returning("size_bytes")
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : toNumber(row.size_bytes)))),
  };
};
