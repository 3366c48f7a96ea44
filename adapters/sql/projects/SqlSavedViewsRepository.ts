/** The SavedViewsRepository port over `pm_saved_views`. */
import { Effect } from "effect";
import type { SavedView } from "../../../core/projects/SavedViewRecord.js";
import type { SavedViewsRepository } from "../../../ports/projects/SavedViewsRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const viewFromRow = (f: DialectFeatures, r: any): SavedView => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  userId: String(r.user_id),
  name: String(r.name),
  filters: f.jsonFromDb(r.filters) as SavedView["filters"],
  sort: f.jsonFromDb(r.sort) as SavedView["sort"],
  createdAt: f.timeFromDb(r.created_at),
});

/** Builds the saved view repository over `db`. */
export const makeSqlSavedViewsRepository = (db: SqlDatabase): SavedViewsRepository => {
  const f = featuresFor(db);
  return {
    insertView: (v) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_saved_views")
          .values({
            id: v.id,
            workspace_id: v.workspaceId,
            project_id: v.projectId,
            user_id: v.userId,
            name: v.name,
            filters: f.jsonToDb(v.filters),
            sort: f.jsonToDb(v.sort),
            created_at: f.timeToDb(v.createdAt),
          })
          .onConflict((oc) => oc.columns(["project_id", "user_id", "name"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => r !== undefined)),
    findView: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_saved_views").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : viewFromRow(f, r))),
      ),
    listViews: (projectId, userId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_saved_views").selectAll().where("project_id", "=", projectId).where("user_id", "=", userId).orderBy("name").orderBy("id").limit(100).execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => viewFromRow(f, r)))),
    deleteView: (id) =>
      runQuery(db, (ex) => ex.deleteFrom("pm_saved_views").where("id", "=", id).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows) === 1)),
  };
};
