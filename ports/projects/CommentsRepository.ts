/** Storage of task comments. */
import { Context, Effect } from "effect";
import type { Comment } from "../../core/projects/model/Comment.js";

/** What a comment says: its body and the users it mentions. */
export interface CommentContent {
  readonly body: string;
  readonly mentions: ReadonlyArray<string>;
}

/** The comment repository. */
export interface CommentsRepository {
  /** Inserts the comment; false (and nothing written) when its client mutation id is taken. */
  readonly insertComment: (comment: Comment) => Effect.Effect<boolean>;
  readonly findByClientMutationId: (authorId: string, taskId: string, clientMutationId: string) => Effect.Effect<Comment | null>;
  /**
   * The content `comment` was added with, whatever its edits since: the body and mentions of its
   * `comment.added` TaskEvent (append-only, written in the transaction that inserted the comment);
   * null when there is none.
   */
  readonly findAddedContent: (comment: Comment) => Effect.Effect<CommentContent | null>;
  /** Comments of a task oldest first by id (time-ordered UUIDs), strictly after `afterId`. */
  readonly listComments: (req: {
    readonly taskId: string;
    readonly afterId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Comment>>;
}
export const CommentsRepository = Context.GenericTag<CommentsRepository>("domainkit/projects/CommentsRepository");
