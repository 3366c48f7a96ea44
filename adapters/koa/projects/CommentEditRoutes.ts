/** PATCH /v1/comments/:id: the author edits body and mentions; only added mentions notify. */
import { Effect, Schema } from "effect";
import { editComment } from "../../../core/projects/CommentEdit.js";
import { CommentView } from "../../../core/projects/model/Comment.js";
import { defineRoute } from "../Route.js";
import { CommentParams, UserId } from "./ProjectSchemas.js";

/** Body of a comment edit. */
export const EditCommentBody = Schema.Struct({
  body: Schema.String,
  mentions: Schema.optionalWith(Schema.Array(UserId), { default: () => [] }),
});

/** PATCH /v1/comments/:id — its author only. */
export const editCommentRoute = defineRoute({
  method: "PATCH",
  path: "/v1/comments/:id",
  operationId: "editComment",
  summary: "Edit a comment (author only)",
  description: "Mentions replace the old list; only users newly mentioned are notified. 409 task_deleted when the task is in the trash.",
  tags: ["projects"],
  auth: "required",
  params: CommentParams,
  body: EditCommentBody,
  responses: { 200: CommentView },
  problems: [403, 404, 409, 422, 429],
  budget: { name: "mentions", cost: ({ body }) => new Set(body.mentions ?? []).size },
  handler: ({ principal, params, body }) =>
    editComment(principal, params.id, { body: body.body, mentions: body.mentions }).pipe(
      Effect.map(({ comment }) => ({ status: 200, body: comment })),
    ),
});

/** Comment edit routes. */
export const commentEditRoutes = [editCommentRoute];
