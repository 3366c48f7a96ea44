/**
 * Editing a comment (PATCH /v1/comments/:id): only its author, who must still hold the comment
 * right on the task. The update is version-checked; it records a `comment.edited` TaskEvent and
 * a CommentEdited envelope in the same transaction whose `mentions` are only the users the edit
 * added, so the mention consumer notifies nobody twice for one comment. An expected version
 * (If-Match, optional) is checked first in the transaction, after the 404s and before the trash
 * rule: a stale one answers 412 with the current comment and its version, even when the edit
 * would change nothing; with it, a lost race is 412 too (without it, 409 as before).
 */
import { Effect } from "effect";
import { Conflict, Forbidden, NotFound, ValidationFailed, type VersionMismatch } from "../kernel/Errors.js";
import { staleWrite, versionMismatch } from "../kernel/Versioning.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { CommentEdits } from "../../ports/projects/CommentEdits.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import { TaskDeleted } from "./Errors.js";
import { Comment, type VersionedComment } from "./model/Comment.js";
import { toWire } from "../kernel/Wire.js";
import { factTypes, recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import type { CommentId } from "./model/Ids.js";

/** The event type of an edit. */
export const commentEditedType = factTypes["comment.edited"];

/** What an author sends to edit a comment. */
export interface CommentEdit {
  readonly body: string;
  readonly mentions: ReadonlyArray<string>;
  /** The comment version the caller saw (If-Match); a stale one answers 412. Without it the edit is unconditional. */
  readonly expectedVersion?: number | undefined;
}

const validate = (input: CommentEdit): Effect.Effect<{ body: string; mentions: string[] }, ValidationFailed> => {
  const body = input.body.trim();
  const mentions = [...new Set(input.mentions)];
  const errors = [];
  if (body.length < 1 || body.length > 10_000) errors.push({ path: "body", message: "must be 1 to 10000 characters" });
  if (mentions.length > 50) errors.push({ path: "mentions", message: "at most 50 users may be mentioned" });
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.succeed({ body, mentions });
};

const noComment = () => new NotFound({ resource: "comment", detail: "No such comment." });

const versioned = (found: { readonly comment: Comment; readonly version: number }): VersionedComment => ({ ...found.comment, version: found.version });

/** Edits the caller's own comment; answers the edited comment with its version and the mentions it added. */
export const editComment = (
  principal: Principal,
  commentId: CommentId,
  input: CommentEdit,
): Effect.Effect<
  { readonly comment: VersionedComment; readonly addedMentions: ReadonlyArray<string> },
  Forbidden | NotFound | ValidationFailed | VersionMismatch | TaskDeleted | Conflict,
  TaskServices | CommentEdits
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const edits = yield* CommentEdits;
    const found = yield* edits.findComment(commentId);
    if (found === null) return yield* Effect.fail(noComment());
    const { access } = yield* taskAccess(userId, found.comment.taskId).pipe(Effect.mapError(noComment));
    yield* requireRight(access, "comment");
    if (found.comment.authorId !== userId) return yield* Effect.fail(new Forbidden({ detail: "Only its author can edit a comment." }));
    const { body, mentions } = yield* validate(input);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const current = yield* edits.findComment(commentId);
        if (current === null) return yield* Effect.fail(noComment());
        const task = yield* (yield* TasksRepository).findTask(current.comment.taskId);
        if (task === null) return yield* Effect.fail(noComment());
        const expected = input.expectedVersion;
        if (expected !== undefined && expected !== current.version) return yield* Effect.fail(versionMismatch(versioned(current), expected));
        if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
        const before = new Set(current.comment.mentions);
        const addedMentions = mentions.filter((m) => !before.has(m));
        const unchanged = body === current.comment.body && mentions.length === before.size && addedMentions.length === 0;
        if (unchanged) return { comment: versioned(current), addedMentions: [] };
        const editedAt = yield* now;
        const written = yield* edits.updateContent({ id: commentId, body, mentions, editedAt, expectedVersion: current.version });
        // SQLite serializes writers and Postgres re-checks the version: a lost race is a 412 with
        // the comment as it is now when the caller named a version, else a 409 to retry.
        if (!written && expected !== undefined) {
          return yield* staleWrite("comment", Effect.map(edits.findComment(commentId), (c) => (c === null ? undefined : versioned(c))), expected);
        }
        if (!written) return yield* Effect.fail(new Conflict({ code: "comment_edit_conflict", detail: "The comment changed meanwhile; retry." }));
        const comment: Comment = { ...current.comment, body, mentions };
        yield* recordTaskFact({
          task,
          actorId: userId,
          kind: "comment.edited",
          data: { comment: toWire(Comment, comment), mentions: addedMentions },
          aggregate: { id: comment.id, version: current.version + 1 },
        });
        return { comment: { ...comment, version: current.version + 1 }, addedMentions };
      }),
    );
  }).pipe(withSpan("Projects.editComment"));
