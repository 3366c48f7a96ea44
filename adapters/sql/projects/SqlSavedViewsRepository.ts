/** The SavedViewsRepository port over `pm_saved_views`. */
import { Effect } from "effect";
import { SavedView } from "../../../core/projects/model/SavedView.js";
import type { SavedViewsRepository } from "../../../ports/projects/SavedViewsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the saved view repository over `db`. */
export const makeSqlSavedViewsRepository = (db: SqlDatabase): SavedViewsRepository => {
  const views = rowCodec(SavedView, featuresFor(db));
  return {
    insertView: (v) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_saved_views")
          .values(views.toRow(v))
          .onConflict((oc) => oc.columns(["project_id", "user_id", "name"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => r !== undefined)),
    findView: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_saved_views").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : views.fromRow(r))),
      ),
    listViews: (projectId, userId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_saved_views").selectAll().where("project_id", "=", projectId).where("user_id", "=", userId).orderBy("name").orderBy("id").limit(100).execute(),
      ).pipe(Effect.map((rows) => rows.map((r) => views.fromRow(r)))),
    deleteView: (id) =>
      runQuery(db, (ex) => ex.deleteFrom("pm_saved_views").where("id", "=", id).executeTakeFirst()).pipe(Effect.map((r) => Number(r.numDeletedRows) === 1)),
  };
};
