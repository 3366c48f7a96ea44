/** VersionsRepository over Kysely (both dialects): status moves are conditional updates. */
import { Effect } from "effect";
import { FileVersion } from "../../../core/files/model/FileVersion.js";
import type { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the versions repository over `db`. */
export const makeSqlVersionsRepository = (db: SqlDatabase): VersionsRepository => {
  const f = featuresFor(db);
  const versions = rowCodec(FileVersion, f);
  const bool = (b: boolean) => (db.dialect === "sqlite" ? (b ? 1 : 0) : b);
  // The version statements of every completed upload and published scan (insert, reads, the
  // current version's swap), compiled once; the status move's `from` list varies, so it is built per call.
  const insertVersion = compiledInsert("fs_file_versions", versions);
  const selectWorkspaceOf = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("fs_file_versions").select("workspace_id").where("id", "=", p("id")));
  const selectVersion = compiledOnce<{ workspaceId: string; id: string }>((ex, p) =>
    ex.selectFrom("fs_file_versions").selectAll().where("workspace_id", "=", p("workspaceId")).where("id", "=", p("id")),
  );
  const selectLastNumber = compiledOnce<{ workspaceId: string; nodeId: string }>((ex, p) =>
    ex
      .selectFrom("fs_file_versions")
      .select((eb) => eb.fn.max("number").as("last"))
      .where("workspace_id", "=", p("workspaceId"))
      .where("node_id", "=", p("nodeId")),
  );
  // Only an older current version steps down for a newer one.
  const clearOlderCurrent = compiledOnce<{ workspaceId: string; nodeId: string; number: number }>((ex, p) =>
    ex
      .updateTable("fs_file_versions")
      .set({ is_current: bool(false) })
      .where("workspace_id", "=", p("workspaceId"))
      .where("node_id", "=", p("nodeId"))
      .where("is_current", "=", bool(true))
      .where("number", "<", p("number")),
  );
  // Steps up only when no version of the file is current any more (a newer one would still be).
  const setCurrentIfNoneIs = compiledOnce<{ workspaceId: string; nodeId: string; id: string }>((ex, p) =>
    ex
      .updateTable("fs_file_versions")
      .set({ is_current: bool(true) })
      .where("workspace_id", "=", p("workspaceId"))
      .where("id", "=", p("id"))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("fs_file_versions as other")
              .select("other.id")
              .where("other.workspace_id", "=", p("workspaceId"))
              .where("other.node_id", "=", p("nodeId"))
              .where("other.is_current", "=", bool(true)),
          ),
        ),
      ),
  );
  return {
    insert: (version) => Effect.asVoid(runStatement(db, insertVersion, version)),
    workspaceOf: (id) =>
      runStatement(db, selectWorkspaceOf, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : String(row.workspace_id))),
      ),
    find: (workspaceId, id) =>
      runStatement(db, selectVersion, { workspaceId, id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : versions.fromRow(row))),
      ),
    nextNumber: (workspaceId, nodeId) =>
      runStatement(db, selectLastNumber, { workspaceId, nodeId }).pipe(
        Effect.map(({ rows: [row] }) => (row?.last === null || row?.last === undefined ? 1 : toNumber(row.last) + 1)),
      ),
    transition: (req) =>
      runQuery(db, async (ex) => {
        const moved = await ex
          .updateTable("fs_file_versions")
          .set({
            status: req.to,
            scan_detail: req.scanDetail,
            ...(req.to === "published" ? { published_at: f.timeToDb(req.at) } : {}),
            ...(req.to !== "published" ? { is_current: bool(false) } : {}),
          })
          .where("workspace_id", "=", req.workspaceId)
          .where("id", "=", req.id)
          .where("status", "in", req.from)
          .returning(["node_id", "number"])
          .executeTakeFirst();
        if (moved === undefined) return "unmoved" as const;
        if (!req.makeCurrent) return "moved" as const;
        // The one current version: an older one steps down before this one steps up (partial UNIQUE
        // index); a newer current one stays, and this one only joins the history.
        const number = toNumber(moved.number);
        await clearOlderCurrent(ex, { workspaceId: req.workspaceId, nodeId: moved.node_id, number });
        const stepped = await setCurrentIfNoneIs(ex, { workspaceId: req.workspaceId, nodeId: moved.node_id, id: req.id });
        return Number(stepped.numAffectedRows ?? 0n) === 1 ? ("made_current" as const) : ("moved" as const);
      }),
    makeLatestPublishedCurrent: (workspaceId, nodeId) =>
      runQuery(db, async (ex) => {
        const latest = await ex
          .selectFrom("fs_file_versions")
          .select("id")
          .where("workspace_id", "=", workspaceId)
          .where("node_id", "=", nodeId)
          .where("status", "=", "published")
          .orderBy("number", "desc")
          .limit(1)
          .executeTakeFirst();
        if (latest !== undefined) await setCurrentIfNoneIs(ex, { workspaceId, nodeId, id: latest.id });
        return ex
          .selectFrom("fs_file_versions")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("node_id", "=", nodeId)
          .where("is_current", "=", bool(true))
          .executeTakeFirst();
      }).pipe(Effect.map((row) => (row === undefined ? null : versions.fromRow(row)))),
    recordDetectedType: (workspaceId, id, detectedContentType) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("fs_file_versions")
          .set({ detected_content_type: detectedContentType })
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .where("status", "=", "quarantined")
          .where("detected_content_type", "is", null)
          .execute(),
      ).pipe(Effect.asVoid),
    listSharingObject: (workspaceId, objectKey) =>
      runQuery(db, (ex) =>
        ex.selectFrom("fs_file_versions").selectAll().where("workspace_id", "=", workspaceId).where("object_key", "=", objectKey).orderBy("node_id").orderBy("number").execute(),
      ).pipe(Effect.map((rows) => rows.map(versions.fromRow))),
    listByStatus: (statuses, afterId, limit) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("fs_file_versions").selectAll().where("status", "in", statuses);
        if (afterId !== null) q = q.where("id", ">", afterId);
        return q.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(versions.fromRow))),
    list: (workspaceId, nodeId, afterNumber, limit) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("fs_file_versions").selectAll().where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId);
        if (afterNumber !== null) q = q.where("number", "<", afterNumber);
        return q.orderBy("number", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(versions.fromRow))),
  };
};
