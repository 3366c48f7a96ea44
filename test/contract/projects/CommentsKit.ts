/**
 * Contract kit for the CommentsRepository and CommentEdits: a comment is unique per (author,
 * task, client mutation id) — a retry writes nothing and finds the first comment again; a
 * task's comments are listed oldest first by id, strictly after the cursor, that task's only;
 * an edit is a version-checked write that advances the edit version by one; the content a comment
 * was added with is read from its comment.added TaskEvent, not from the (edited) row.
 */
import { Effect } from "effect";
import type { Comment } from "../../../core/projects/model/Comment.js";
import type { Project } from "../../../core/projects/model/Project.js";
import { CommentEdits } from "../../../ports/projects/CommentEdits.js";
import { CommentsRepository } from "../../../ports/projects/CommentsRepository.js";
import { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import type { TaskEvent } from "../../../core/projects/model/TaskEvent.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { idsOf, seedProject, seedProjectWithTasks, uid, type SeedPorts } from "./fixtures.js";
import { CommentId, TaskEventId, TaskId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type CommentsKitPorts = CommentsRepository | CommentEdits | TasksRepository | SeedPorts;

const comments = <A>(f: (r: CommentsRepository) => Effect.Effect<A>) => Effect.flatMap(CommentsRepository, f);
const tasks = <A>(f: (r: TasksRepository) => Effect.Effect<A>) => Effect.flatMap(TasksRepository, f);
const edits = <A>(f: (r: CommentEdits) => Effect.Effect<A>) => Effect.flatMap(CommentEdits, f);
const ids = idsOf;

/** A comment `n` on task `taskN` of `project`. */
export const commentRecord = (project: Project, taskN: number, n: number, overrides: Partial<Comment> = {}): Comment => ({
  id: CommentId.make(uid("cmt", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  taskId: TaskId.make(uid("task", taskN)),
  authorId: "user-1",
  body: `Comment ${n} for @user-2`,
  mentions: ["user-2"],
  clientMutationId: `cm-${n}`,
  createdAt: at(n),
  ...overrides,
});

const seed = seedProjectWithTasks;

/** The cases of the comments kit. */
export const commentsCases: ReadonlyArray<KitCase<CommentsKitPorts>> = [
  {
    name: "comments: a comment is found again by (author, task, client mutation id), as written",
    run: async (t, run) => {
      const project = await run(seed);
      const comment = commentRecord(project, 1, 1);
      t.equal(await run(comments((r) => r.insertComment(comment))), true);
      t.same(await run(comments((r) => r.findByClientMutationId("user-1", uid("task", 1), "cm-1"))), comment);
      t.equal(await run(comments((r) => r.findByClientMutationId("user-2", uid("task", 1), "cm-1"))), null, "another author's id");
      t.equal(await run(comments((r) => r.findByClientMutationId("user-1", uid("task", 2), "cm-1"))), null, "another task's id");
    },
  },
  {
    name: "comments: a retry with a taken client mutation id writes nothing and answers false",
    run: async (t, run) => {
      const project = await run(seed);
      await run(comments((r) => r.insertComment(commentRecord(project, 1, 1))));
      const retry = commentRecord(project, 1, 2, { clientMutationId: "cm-1", body: "second attempt" });
      t.equal(await run(comments((r) => r.insertComment(retry))), false);
      t.same(ids(await run(comments((r) => r.listComments({ taskId: uid("task", 1), limit: 10 })))), [uid("cmt", 1)], "one comment only");
      t.equal((await run(comments((r) => r.findByClientMutationId("user-1", uid("task", 1), "cm-1"))))?.body, "Comment 1 for @user-2", "the first one");
      t.equal(await run(comments((r) => r.insertComment(commentRecord(project, 1, 3, { clientMutationId: "cm-1", authorId: "user-3" })))), true, "another author may use it");
      t.equal(await run(comments((r) => r.insertComment(commentRecord(project, 2, 4, { clientMutationId: "cm-1" })))), true, "so may the same author on another task");
    },
  },
  {
    name: "comments: a task's comments are listed oldest first by id, strictly after the cursor, that task's only",
    run: async (t, run) => {
      const project = await run(seed);
      await run(
        comments((r) =>
          Effect.forEach([3, 1, 4, 2, 5], (n) => r.insertComment(commentRecord(project, n === 5 ? 2 : 1, n)), { discard: true }),
        ),
      );
      t.same(ids(await run(comments((r) => r.listComments({ taskId: uid("task", 1), limit: 10 })))), [uid("cmt", 1), uid("cmt", 2), uid("cmt", 3), uid("cmt", 4)]);
      t.same(ids(await run(comments((r) => r.listComments({ taskId: uid("task", 1), afterId: uid("cmt", 2), limit: 1 })))), [uid("cmt", 3)]);
      t.same(ids(await run(comments((r) => r.listComments({ taskId: uid("task", 1), afterId: uid("cmt", 4), limit: 10 })))), []);
    },
  },
  {
    name: "comment edits: an edit is written while the version is the expected one, and advances it by one",
    run: async (t, run) => {
      const project = await run(seed);
      const comment = commentRecord(project, 1, 1);
      await run(comments((r) => r.insertComment(comment)));
      const found = await run(edits((r) => r.findComment(comment.id)));
      t.same(found?.comment, comment);
      const version = found?.version ?? -1;
      const edit = (expectedVersion: number, body: string) =>
        edits((r) => r.updateContent({ id: comment.id, body, mentions: ["user-3"], editedAt: at(100), expectedVersion }));
      t.equal(await run(edit(version, "edited")), true);
      const after = await run(edits((r) => r.findComment(comment.id)));
      t.equal(after?.version, version + 1);
      t.equal(after?.comment.body, "edited");
      t.same(after?.comment.mentions, ["user-3"]);
      t.equal(await run(edit(version, "stale")), false, "the version moved");
      t.equal((await run(edits((r) => r.findComment(comment.id))))?.comment.body, "edited", "nothing written by the stale edit");
      t.equal(await run(edits((r) => r.findComment(uid("cmt", 9)))), null);
      t.equal(await run(edits((r) => r.updateContent({ id: uid("cmt", 9), body: "x", mentions: [], editedAt: T0, expectedVersion: version }))), false);
    },
  },
  {
    name: "comments: the content a comment was added with is read from its comment.added TaskEvent, whatever its edits",
    run: async (t, run) => {
      const project = await run(seed);
      const comment = commentRecord(project, 1, 1);
      const other = commentRecord(project, 1, 2);
      const added = (c: Comment, n: number): TaskEvent => ({
        id: TaskEventId.make(uid("evt", n)),
        workspaceId: c.workspaceId,
        projectId: c.projectId,
        taskId: c.taskId,
        actorId: c.authorId,
        kind: "comment.added",
        data: { kind: "comment.added", comment: { id: c.id, body: c.body, mentions: c.mentions }, mentions: c.mentions },
        createdAt: c.createdAt,
      });
      await run(comments((r) => r.insertComment(comment)));
      t.equal(await run(comments((r) => r.findAddedContent(comment))), null, "no comment.added TaskEvent: none");
      await run(comments((r) => r.insertComment(other)));
      await run(tasks((r) => Effect.forEach([added(other, 1), added(comment, 2)], (e) => r.appendEvent(e), { discard: true })));
      await run(tasks((r) => r.appendEvent({ ...added(comment, 3), kind: "comment.edited", data: { kind: "comment.edited", comment: { id: comment.id, body: "later", mentions: [] }, mentions: [] } })));
      await run(edits((r) => r.updateContent({ id: comment.id, body: "edited", mentions: [], editedAt: at(100), expectedVersion: 1 })));
      t.equal((await run(edits((r) => r.findComment(comment.id))))?.comment.body, "edited", "the row holds the edit only");
      t.same(await run(comments((r) => r.findAddedContent(comment))), { body: comment.body, mentions: comment.mentions }, "the first content");
      t.same(await run(comments((r) => r.findAddedContent(other))), { body: other.body, mentions: other.mentions }, "each comment its own");
    },
  },
  {
    name: "comments: a comment cannot point at a task of another workspace",
    run: async (t, run) => {
      await run(seed);
      const other = await run(seedProject(2));
      // Task 1 is in workspace 1; the comment claims workspace 2's project.
      const crossing = commentRecord(other, 1, 1);
      const exit = await run(Effect.exit(comments((r) => r.insertComment(crossing))));
      t.equal(exit._tag, "Failure", "spec, composite tenant references: refused");
      t.equal(await run(comments((r) => r.findByClientMutationId("user-1", uid("task", 1), "cm-1"))), null, "nothing written");
    },
  },
];

/** Runs the comments kit. */
export const commentsSuite = (options: SuiteOptions<CommentsKitPorts>): Promise<unknown> => runCases(options, commentsCases);
