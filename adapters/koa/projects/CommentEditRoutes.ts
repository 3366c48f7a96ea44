/** PATCH /v1/comments/:id: the author edits body and mentions; only added mentions notify. */
import { Effect, Schema } from "effect";
import { VersionMismatch } from "../../../core/kernel/Errors.js";
import { toWire } from "../../../core/kernel/Wire.js";
import { editComment } from "../../../core/projects/CommentEdit.js";
import { VersionedComment, VersionedCommentView } from "../../../core/projects/model/Comment.js";
import { defineRoute } from "../Route.js";
import { CommentParams, UserId } from "./ProjectSchemas.js";

/** Body of a comment edit. */
export const EditCommentBody = Schema.Struct({
  body: Schema.String,
  mentions: Schema.optionalWith(Schema.Array(UserId), { default: () => [] }),
});

const isVersionedComment = Schema.is(VersionedComment);

/** A stale-version 412 whose `current` is the versioned comment view the edit answers. */
const currentAsCommentView = <E>(error: E): E | VersionMismatch =>
  error instanceof VersionMismatch && isVersionedComment(error.current)
    ? new VersionMismatch({ current: toWire(VersionedComment, error.current), ...(error.detail !== undefined ? { detail: error.detail } : {}) })
    : error;

/** PATCH /v1/comments/:id — its author only; If-Match optional. */
export const editCommentRoute = defineRoute({
  method: "PATCH",
  path: "/v1/comments/:id",
  operationId: "editComment",
  summary: "Edit a comment (author only)",
  description:
    "Mentions replace the old list; only users newly mentioned are notified. 409 task_deleted when the task is in the trash. " +
    "The answer carries the comment's version (1 when added, one more per edit), also as the ETag. With If-Match, only if the comment is still at that version: " +
    "412 version_mismatch with `current` (the comment with its version) otherwise. Without it, unconditional (409 comment_edit_conflict for a lost race).",
  tags: ["projects"],
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  params: CommentParams,
  body: EditCommentBody,
  responses: { 200: VersionedCommentView },
  problems: [403, 404, 409, 412, 422, 429],
  budget: { name: "mentions", cost: ({ body }) => new Set(body.mentions ?? []).size },
  handler: ({ principal, params, body, ifMatch }) =>
    editComment(principal, params.id, { body: body.body, mentions: body.mentions, expectedVersion: ifMatch }).pipe(
      Effect.map(({ comment }) => ({ status: 200, body: comment, etag: comment.version })),
      Effect.mapError(currentAsCommentView),
    ),
});

/** Comment edit routes. */
export const commentEditRoutes = [editCommentRoute];
