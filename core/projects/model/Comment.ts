/** A comment on a task. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CommentId, ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** A comment; (authorId, taskId, clientMutationId) is unique so a retry finds the first one. */
export const Comment = Schema.Struct({
  id: CommentId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  authorId: Schema.String,
  body: Schema.String,
  mentions: Schema.Array(Schema.String),
  clientMutationId: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Comment = typeof Comment.Type;

/** Wire shape of a comment (HTTP answers and comment event data). */
export const CommentView = wireShape(Comment);

/** A comment with its version (1 when added, one more per edit): what an edit answers, with it as the ETag. */
export const VersionedComment = Schema.Struct({ ...Comment.fields, version: Schema.Int });
export type VersionedComment = typeof VersionedComment.Type;

/** Wire shape of a versioned comment (the edit's answer and the `current` of its 412). */
export const VersionedCommentView = wireShape(VersionedComment);
