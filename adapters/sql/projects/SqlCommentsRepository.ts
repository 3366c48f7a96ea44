/** The CommentsRepository port over `pm_comments`; the unique client mutation id decides retries. */
import { Effect } from "effect";
import type { CommentsRepository } from "../../../ports/projects/CommentsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { commentFromRow } from "./projectRows.js";

/** Builds the comment repository over `db`. */
export const makeSqlCommentsRepository = (db: SqlDatabase): CommentsRepository => {
  const f = featuresFor(db);
  return {
    insertComment: (c) =>
      // ON CONFLICT DO NOTHING keeps a Postgres transaction usable when a retry raced us.
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_comments")
          .values({
            id: c.id,
            workspace_id: c.workspaceId,
            project_id: c.projectId,
            task_id: c.taskId,
            author_id: c.authorId,
            body: c.body,
            mentions: f.jsonToDb(c.mentions),
            client_mutation_id: c.clientMutationId,
            created_at: f.timeToDb(c.createdAt),
          })
          .onConflict((oc) => oc.columns(["author_id", "task_id", "client_mutation_id"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => r !== undefined),
        Effect.withSpan("CommentsRepository.insertComment"),
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
      ).pipe(Effect.map((r) => (r === undefined ? null : commentFromRow(f, r)))),
    listComments: ({ taskId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("pm_comments").selectAll().where("task_id", "=", taskId);
        if (afterId !== undefined) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map((r) => commentFromRow(f, r)))),
  };
};
