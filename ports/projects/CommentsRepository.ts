/** Storage of task comments. */
import { Context, Effect } from "effect";
import type { Comment } from "../../core/projects/model/Comment.js";

/** The comment repository. */
export interface CommentsRepository {
  /** Inserts the comment; false (and nothing written) when its client mutation id is taken. */
  readonly insertComment: (comment: Comment) => Effect.Effect<boolean>;
  readonly findByClientMutationId: (authorId: string, taskId: string, clientMutationId: string) => Effect.Effect<Comment | null>;
  /** Comments of a task oldest first by id (time-ordered UUIDs), strictly after `afterId`. */
  readonly listComments: (req: {
    readonly taskId: string;
    readonly afterId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Comment>>;
}
export const CommentsRepository = Context.GenericTag<CommentsRepository>("domainkit/projects/CommentsRepository");
