/**
 * The ExportsRepository port: `pm_exports` rows, and keyset pages (id order, filtered by the
 * visible project ids in the query) over the project tables an export streams.
 */
import { Effect } from "effect";
import type { WorkspaceExport } from "../../../core/projects/ExportRecord.js";
import type { ExportPage, ExportsRepository } from "../../../ports/projects/ExportsRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { attachmentFromRow } from "./SqlAttachmentsRepository.js";
import { commentFromRow, projectMemberFromRow, taskEventFromRow, taskFromRow } from "./projectRows.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : toNumber(value));

const exportFromRow = (f: DialectFeatures, r: any): WorkspaceExport => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  requestedBy: String(r.requested_by),
  status: r.status,
  objectKey: String(r.object_key),
  size: numberOrNull(r.size),
  sha256: r.sha256 === null ? null : String(r.sha256),
  lineCount: numberOrNull(r.line_count),
  error: r.error === null ? null : String(r.error),
  createdAt: f.timeFromDb(r.created_at),
  completedAt: r.completed_at === null ? null : f.timeFromDb(r.completed_at),
});

/** Builds the export repository over `db`. */
export const makeSqlExportsRepository = (db: SqlDatabase): ExportsRepository => {
  const f = featuresFor(db);
  /** One keyset page of `table` by id over the given projects (none visible: no query at all). */
  const page = <A>(table: string, map: (r: any) => A) => (req: ExportPage): Effect.Effect<ReadonlyArray<A>> =>
    req.projectIds.length === 0
      ? Effect.succeed([])
      : runQuery(db, (ex) => {
          let query = ex.selectFrom(table).selectAll().where("project_id", "in", [...req.projectIds]);
          if (req.afterId !== undefined) query = query.where("id", ">", req.afterId);
          return query.orderBy("id").limit(req.limit).execute();
        }).pipe(Effect.map((rows) => rows.map(map)));
  return {
    insertExport: (e) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_exports")
          .values({
            id: e.id,
            workspace_id: e.workspaceId,
            requested_by: e.requestedBy,
            status: e.status,
            object_key: e.objectKey,
            size: e.size,
            sha256: e.sha256,
            line_count: e.lineCount,
            error: e.error,
            created_at: f.timeToDb(e.createdAt),
            completed_at: e.completedAt === null ? null : f.timeToDb(e.completedAt),
          })
          .execute(),
      ).pipe(Effect.asVoid),
    findExport: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_exports").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : exportFromRow(f, r))),
      ),
    finishExport: (e) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_exports")
          .set({
            status: e.status,
            size: e.size,
            sha256: e.sha256,
            line_count: e.lineCount,
            error: e.error,
            completed_at: e.completedAt === null ? null : f.timeToDb(e.completedAt),
          })
          .where("id", "=", e.id)
          .where("status", "=", "pending")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numUpdatedRows) === 1)),
    // Memberships have no id column: the page key is "<project_id>/<user_id>", in that order.
    projectMembers: (req) =>
      req.projectIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) => {
            let query = ex.selectFrom("pm_project_members").selectAll().where("project_id", "in", [...req.projectIds]);
            if (req.afterId !== undefined) {
              const [projectId, userId] = req.afterId.split("/");
              query = query.where((eb) =>
                eb.or([eb("project_id", ">", projectId!), eb.and([eb("project_id", "=", projectId!), eb("user_id", ">", userId!)])]),
              );
            }
            return query.orderBy("project_id").orderBy("user_id").limit(req.limit).execute();
          }).pipe(Effect.map((rows) => rows.map((r) => ({ ...projectMemberFromRow(f, r), id: `${r.project_id}/${r.user_id}` })))),
    tasks: page("pm_tasks", (r) => taskFromRow(f, r)),
    comments: page("pm_comments", (r) => commentFromRow(f, r)),
    attachments: page("pm_attachments", (r) => attachmentFromRow(f, r)),
    events: page("pm_task_events", (r) => taskEventFromRow(f, r)),
  };
};
