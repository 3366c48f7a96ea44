/** UploadsRepository over Kysely (both dialects): settling is one conditional update from `open`. */
import { Effect } from "effect";
import { sql } from "kysely";
import { UploadPart, UploadSession } from "../../../core/files/model/UploadSession.js";
import type { UploadsRepository } from "../../../ports/files/UploadsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runStatement, sendEach, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the uploads repository over `db`. */
export const makeSqlUploadsRepository = (db: SqlDatabase): UploadsRepository => {
  const f = featuresFor(db);
  const sessions = rowCodec(UploadSession, f);
  const parts = rowCodec(UploadPart, f);
  // The session's statements of every upload (insert, reads, part report, settling), compiled
  // once; the parts are inserted a row per statement (compiled once too, pipelined on Postgres).
  const insertSession = compiledInsert("fs_upload_sessions", sessions);
  const insertPart = compiledInsert("fs_upload_parts", parts);
  const selectWorkspaceOf = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("fs_upload_sessions").select("workspace_id").where("id", "=", p("id")));
  const selectSession = compiledOnce<{ workspaceId: string; id: string }>((ex, p) =>
    ex.selectFrom("fs_upload_sessions").selectAll().where("workspace_id", "=", p("workspaceId")).where("id", "=", p("id")),
  );
  const selectOpenOf = compiledOnce<{ workspaceId: string; createdBy: string }>((ex, p) =>
    ex
      .selectFrom("fs_upload_sessions")
      .selectAll()
      .where("workspace_id", "=", p("workspaceId"))
      .where("created_by", "=", p("createdBy"))
      // A literal, so the partial index fs_upload_sessions_open_by_creator (files migration 19) applies.
      .where(sql<boolean>`status = 'open'`),
  );
  const selectParts = compiledOnce<{ workspaceId: string; sessionId: string }>((ex, p) =>
    ex.selectFrom("fs_upload_parts").selectAll().where("workspace_id", "=", p("workspaceId")).where("session_id", "=", p("sessionId")).orderBy("part_number"),
  );
  const updatePartEtag = compiledOnce<{ workspaceId: string; sessionId: string; partNumber: number; etag: string }>((ex, p) =>
    ex
      .updateTable("fs_upload_parts")
      .set({ etag: p("etag") })
      .where("workspace_id", "=", p("workspaceId"))
      .where("session_id", "=", p("sessionId"))
      .where("part_number", "=", p("partNumber")),
  );
  const settleIfOpen = compiledOnce<{ workspaceId: string; id: string; to: string; versionId: string | null; at: unknown }>((ex, p) =>
    ex
      .updateTable("fs_upload_sessions")
      .set({ status: p("to"), reserved_bytes: 0, version_id: p("versionId"), updated_at: p("at") })
      .where("workspace_id", "=", p("workspaceId"))
      .where("id", "=", p("id"))
      .where("status", "=", "open")
      .returning("size_bytes"),
  );
  return {
    // A new session and its parts, under its fresh id: nothing reads their answers.
    insert: (session, sessionParts) => Effect.zipRight(sendStatement(db, insertSession, session), sendEach(db, insertPart, sessionParts)),
    workspaceOf: (id) =>
      runStatement(db, selectWorkspaceOf, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : String(row.workspace_id))),
      ),
    find: (workspaceId, id) =>
      runStatement(db, selectSession, { workspaceId, id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : sessions.fromRow(row))),
      ),
    openOf: (workspaceId, createdBy) =>
      runStatement(db, selectOpenOf, { workspaceId, createdBy }).pipe(Effect.map(({ rows }) => rows.map(sessions.fromRow))),
    parts: (workspaceId, sessionId) =>
      runStatement(db, selectParts, { workspaceId, sessionId }).pipe(Effect.map(({ rows }) => rows.map(parts.fromRow))),
    recordPart: (req) =>
      runStatement(db, updatePartEtag, req).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0) > 0),
      ),
    settle: (req) =>
      runStatement(db, settleIfOpen, { workspaceId: req.workspaceId, id: req.id, to: req.to, versionId: req.versionId, at: f.timeToDb(req.at) }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : toNumber(row.size_bytes))),
      ),
  };
};
