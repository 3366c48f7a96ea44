/** The CommentEdits port over `pm_comments` (its `version` column counts edits; the update is conditional). */
import { Effect } from "effect";
import { Comment } from "../../../core/projects/model/Comment.js";
import type { CommentEdits } from "../../../ports/projects/CommentEdits.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the comment-edit port over `db`. */
export const makeSqlCommentEdits = (db: SqlDatabase): CommentEdits => {
  const f = featuresFor(db);
  const comments = rowCodec(Comment, f);
  return {
    findComment: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_comments").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : { comment: comments.fromRow(r), version: toNumber(r.version) })),
      ),
    updateContent: ({ id, body, mentions, editedAt, expectedVersion }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("pm_comments")
          .set({ body, mentions: f.jsonToDb(mentions), edited_at: f.timeToDb(editedAt), version: expectedVersion + 1 })
          .where("id", "=", id)
          .where("version", "=", expectedVersion)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => toNumber(r.numUpdatedRows) === 1),
        withSpan("CommentEdits.updateContent"),
      ),
    versionsOf: (ids) =>
      ids.length === 0
        ? Effect.succeed(new Map())
        : runQuery(db, (ex) => ex.selectFrom("pm_comments").select(["id", "version"]).where("id", "in", [...ids]).execute()).pipe(
            Effect.map((rows) => new Map(rows.map((r) => [r.id, toNumber(r.version)] as const))),
            withSpan("CommentEdits.versionsOf"),
          ),
  };
};
