/** The CommentsRepository port over `pm_comments`; the unique client mutation id decides retries. */
import { Effect, Schema } from "effect";
import { sql } from "kysely";
import { Comment } from "../../../core/projects/model/Comment.js";
import type { CommentsRepository } from "../../../ports/projects/CommentsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";

// The part of a `comment.added` TaskEvent's data that holds the content the comment was added with.
const addedContent = Schema.decodeUnknownOption(
  Schema.Struct({ comment: Schema.Struct({ body: Schema.String, mentions: Schema.Array(Schema.String) }) }),
);

/** Builds the comment repository over `db`. */
export const makeSqlCommentsRepository = (db: SqlDatabase): CommentsRepository => {
  const f = featuresFor(db);
  const comments = rowCodec(Comment, f);
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
    findAddedContent: (c) =>
      // `->` and `->>` read the JSON data on both dialects (jsonb on Postgres, text on SQLite).
      runQuery(db, (ex) =>
        ex
          .selectFrom("pm_task_events")
          .select("data")
          .where("project_id", "=", c.projectId)
          .where("task_id", "=", c.taskId)
          .where("kind", "=", "comment.added")
          .where(sql<string>`data -> 'comment' ->> 'id'`, "=", c.id)
          .orderBy("id")
          .limit(1)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => {
          if (r === undefined) return null;
          const decoded = addedContent(f.jsonFromDb(r.data));
          return decoded._tag === "Some" ? { body: decoded.value.comment.body, mentions: decoded.value.comment.mentions } : null;
        }),
        withSpan("CommentsRepository.findAddedContent"),
      ),
    listComments: ({ taskId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_comments").selectAll().where("task_id", "=", taskId);
        if (afterId !== undefined) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => comments.fromRow(r)))),
  };
};
