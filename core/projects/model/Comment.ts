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
