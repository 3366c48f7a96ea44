/**
 * Comments with mentions (spec rule 5). The body field `client_mutation_id` is unique per
 * author and task: a retry with the same id and the content the comment was added with returns
 * the comment (as it is now, edits included) and writes nothing; the same id with other content,
 * the edited content included, is a 422. Answers carry each comment's version (the If-Match of
 * an edit): 1 when added, one more per edit. The comment, its TaskEvent and its
 * CommentAdded envelope commit together. Mention delivery is a consumer's job (later slice).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { ValidationFailed, type Forbidden, type InvalidCursor, type NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { CommentsRepository, type CommentContent } from "../../ports/projects/CommentsRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import { ClientMutationIdReused, TaskDeleted } from "./Errors.js";
import { Comment, type VersionedComment } from "./model/Comment.js";
import { CommentEdits } from "../../ports/projects/CommentEdits.js";
import { initialVersion } from "../kernel/Versioning.js";
import { toWire } from "../kernel/Wire.js";
import { recordTaskFact } from "./TaskFacts.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { CommentId, TaskId } from "./model/Ids.js";

/** What an author sends. */
export interface NewComment {
  readonly body: string;
  readonly mentions: ReadonlyArray<string>;
  readonly clientMutationId: string;
}

const sameContent = (a: CommentContent, body: string, mentions: ReadonlyArray<string>): boolean =>
  a.body === body && a.mentions.length === mentions.length && a.mentions.every((m, i) => m === mentions[i]);

const validate = (input: NewComment): Effect.Effect<{ body: string; mentions: string[] }, ValidationFailed> => {
  const errors = [];
  const body = input.body.trim();
  if (body.length < 1 || body.length > 10_000) errors.push({ path: "body", message: "must be 1 to 10000 characters" });
  const mentions = [...new Set(input.mentions)];
  if (mentions.length > 50) errors.push({ path: "mentions", message: "at most 50 users may be mentioned" });
  if (input.clientMutationId.length < 1 || input.clientMutationId.length > 255) {
    errors.push({ path: "client_mutation_id", message: "must be 1 to 255 characters" });
  }
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.succeed({ body, mentions });
};

/** The comments with their versions (edits count; a comment gone meanwhile keeps the first). */
const withVersions = (comments: ReadonlyArray<Comment>): Effect.Effect<ReadonlyArray<VersionedComment>, never, CommentEdits> =>
  Effect.map(
    Effect.flatMap(CommentEdits, (edits) => edits.versionsOf(comments.map((c) => c.id))),
    (versions) => comments.map((c) => ({ ...c, version: versions.get(c.id) ?? initialVersion })),
  );

/** Adds a comment (commenter or above); answers the comment with its version and whether this call created it. */
export const addComment = (
  principal: Principal,
  taskId: TaskId,
  input: NewComment,
): Effect.Effect<
  { readonly comment: VersionedComment; readonly created: boolean },
  Forbidden | NotFound | ValidationFailed | TaskDeleted | ClientMutationIdReused,
  TaskServices | CommentsRepository | CommentEdits
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "comment");
    const { body, mentions } = yield* validate(input);
    const repo = yield* CommentsRepository;
    const id = CommentId.make(yield* (yield* Ids).next);
    // A replay is the same request as the first one: its content is compared with the content the
    // comment was added with (its comment.added TaskEvent), not with an edit made since; the answer
    // is the comment as it is now. The comment row keeps only the current content.
    const replay = (existing: Comment) =>
      Effect.gen(function* () {
        const first = (yield* repo.findAddedContent(existing)) ?? existing;
        return sameContent(first, body, mentions)
          ? { comment: (yield* withVersions([existing]))[0]!, created: false }
          : yield* Effect.fail(new ClientMutationIdReused({ detail: "This client_mutation_id was already used for another comment." }));
      });
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const existing = yield* repo.findByClientMutationId(userId, taskId, input.clientMutationId);
        if (existing !== null) return yield* replay(existing);
        const { task } = yield* taskAccess(userId, taskId);
        if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
        const comment: Comment = {
          id,
          workspaceId: task.workspaceId,
          projectId: task.projectId,
          taskId,
          authorId: userId,
          body,
          mentions,
          clientMutationId: input.clientMutationId,
          createdAt: yield* now,
        };
        if (!(yield* repo.insertComment(comment))) {
          // A concurrent retry won the unique key: answer with its comment.
          const winner = yield* repo.findByClientMutationId(userId, taskId, input.clientMutationId);
          if (winner !== null) return yield* replay(winner);
        }
        yield* recordTaskFact({
          task,
          actorId: userId,
          kind: "comment.added",
          aggregate: { id: comment.id, version: 1 },
          data: { comment: toWire(Comment, comment), mentions },
        });
        return { comment: { ...comment, version: initialVersion }, created: true };
      }),
    );
  }).pipe(withSpan("Projects.addComment"));

/** Comments of a visible task, oldest first. */
export const listComments = (
  principal: Principal,
  taskId: TaskId,
  query: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<VersionedComment>, Forbidden | NotFound | InvalidCursor, TaskServices | CommentsRepository | CommentEdits> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    const after = query.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, query.cursor);
    const rows = yield* (yield* CommentsRepository).listComments({ taskId, afterId: after?.[0], limit: query.limit + 1 });
    return pageFrom(yield* withVersions(rows), query.limit, (c) => [c.id]);
  }).pipe(withSpan("Projects.listComments"));
