/** The CommentsRepository port over `pm_comments`; the unique client mutation id decides retries. */
import { Effect } from "effect";
import { Comment } from "../../../core/projects/model/Comment.js";
import type { CommentsRepository } from "../../../ports/projects/CommentsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the comment repository over `db`. */
export const makeSqlCommentsRepository = (db: SqlDatabase): CommentsRepository => {
  const comments = rowCodec(Comment, featuresFor(db));
  return {
    insertComment: (c) =>
      // ON CONFLICT DO NOTHING keeps a Postgres transaction usable when a retry raced us.
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_comments")
          .values(comments.toRow(c))
          .onConflict((oc) => oc.columns(["author_id", "task_id", "client_mutation_id"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => r !== undefined),
        withSpan("CommentsRepository.insertComment"),
      ),
    findByClientMutationId: (authorId, taskId, clientMutationId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_comments")
          .selectAll()
          .where("author_id", "=", authorId)
          .where("task_id", "=", taskId)
          .where("client_mutation_id", "=", clientMutationId)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : comments.fromRow(r)))),
    listComments: ({ taskId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_comments").selectAll().where("task_id", "=", taskId);
        if (afterId !== undefined) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => comments.fromRow(r)))),
  };
};
