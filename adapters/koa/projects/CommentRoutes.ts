/** Routes of task comments (client_mutation_id makes a retry return the same comment). */
import { Effect } from "effect";
import { addComment, listComments } from "../../../core/projects/Comments.js";
import { VersionedCommentView } from "../../../core/projects/model/Comment.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { CommentBody, PageQuery, TaskParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** POST /v1/tasks/:id/comments — commenter or above; 201 also for a retry (same comment). */
export const addCommentRoute = defineRoute({
  method: "POST",
  path: "/v1/tasks/:id/comments",
  operationId: "addComment",
  summary: "Comment on a task, mentioning users",
  description:
    "`client_mutation_id` is unique per author and task: a retry with the content the first call sent answers the comment it created, as it is now (edits included); the same id with other content, the edited content included, is 422 `client_mutation_id_reused`. The answer carries the comment's `version` (1 when added, one more per edit), also as the ETag: the If-Match of PATCH /v1/comments/:id.",
  tags,
  auth: "required",
  answersEtag: "version",
  // The specification's mechanism here is the body's client_mutation_id, not Idempotency-Key.
  idempotency: "none",
  params: TaskParams,
  body: CommentBody,
  responses: { 201: VersionedCommentView },
  problems: [403, 404, 409, 422, 429],
  // Each mention reaches someone: the mentions budget is spent per mentioned user.
  budget: { name: "mentions", cost: ({ body }) => new Set(body.mentions).size },
  handler: ({ principal, params, body }) =>
    addComment(principal, params.id, { body: body.body, mentions: body.mentions, clientMutationId: body.client_mutation_id }).pipe(
      Effect.map(({ comment }) => ({ status: 201, body: comment, etag: comment.version })),
    ),
});

/** GET /v1/tasks/:id/comments — oldest first. */
export const listCommentsRoute = defineRoute({
  method: "GET",
  path: "/v1/tasks/:id/comments",
  operationId: "listComments",
  summary: "List a task's comments",
  tags,
  auth: "required",
  pagination: true,
  params: TaskParams,
  query: PageQuery,
  responses: { 200: PageOf(VersionedCommentView) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    listComments(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((page) => ({ status: 200, body: page })),
    ),
});

/** Comment routes. */
export const commentRoutes = [addCommentRoute, listCommentsRoute];
