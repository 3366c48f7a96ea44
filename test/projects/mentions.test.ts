/**
 * Spec rule 5 (mentions): a CommentAdded delivered twice still yields exactly one notification
 * per (recipient, event) and one e-mail job; a mentioned user who cannot see the task gets
 * nothing; editing a comment notifies only the newly added mentions — SQLite and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { Transactions } from "../../ports/Transactions.js";
import { addComment } from "../../core/projects/Comments.js";
import { editComment } from "../../core/projects/CommentEdit.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { mentionEmailJobKind, mentionNotificationsConsumer } from "../../core/projects/MentionNotifications.js";
import { forEachDialect } from "../support/databases.js";
import { coreFixture, drainOutbox, outboxEvents, slice2aRuntime } from "./notifications-support.js";

const notificationsOf = (db: Parameters<typeof outboxEvents>[0], recipientId: string) =>
  db.db.selectFrom("pm_notifications").selectAll().where("recipient_id", "=", recipientId).execute();

t.test("mentions create exactly one notification per (recipient, event) even when CommentAdded is delivered twice", (t) =>
  forEachDialect(t, "duplicate delivery", async (t, db) => {
    const { run } = slice2aRuntime(t, db);
    const { owner, project, users } = await coreFixture(run, { alice: { workspace: "member", project: "viewer" } });
    const task = await run(createTask(owner, project.id, { title: "Ship it" }));
    await run(addComment(owner, task.id, { body: "@alice look", mentions: [users.alice!.userId], clientMutationId: "c1" }));
    const [event] = await outboxEvents(db, "CommentAdded");
    // Bypass the inbox: the consumer itself must be safe against a second delivery.
    const handleInTransaction = Effect.flatMap(Transactions, (tx) => tx.run(mentionNotificationsConsumer.handle(event!)));
    await run(handleInTransaction);
    await run(handleInTransaction);
    await Promise.all([run(handleInTransaction), run(handleInTransaction)]);
    await run(drainOutbox());
    const rows = await notificationsOf(db, users.alice!.userId);
    t.equal(rows.length, 1, "one notification for alice");
    t.equal(rows[0]!.event_id, event!.id, "keyed by the CommentAdded event");
    const jobs = await db.db.selectFrom("jobs").select("id").where("kind", "=", mentionEmailJobKind).execute();
    t.equal(jobs.length, 1, "and one e-mail job");
  }),
);

t.test("a mentioned user who cannot see the task gets nothing", (t) =>
  forEachDialect(t, "invisible mention", async (t, db) => {
    const { run } = slice2aRuntime(t, db);
    const { owner, project, users } = await coreFixture(run, {
      outsiderMember: { workspace: "member" },
      unsharedGuest: { workspace: "guest" },
      sharedGuest: { workspace: "guest", project: "viewer" },
    });
    const task = await run(createTask(owner, project.id, { title: "Secret plan" }));
    const stranger = crypto.randomUUID();
    const mentions = [users.outsiderMember!.userId, users.unsharedGuest!.userId, users.sharedGuest!.userId, stranger, owner.userId];
    await run(addComment(owner, task.id, { body: "everyone look", mentions, clientMutationId: "c1" }));
    await run(drainOutbox());
    t.equal((await notificationsOf(db, users.outsiderMember!.userId)).length, 0, "a workspace member without the project: nothing");
    t.equal((await notificationsOf(db, users.unsharedGuest!.userId)).length, 0, "a guest the project is not shared with: nothing");
    t.equal((await notificationsOf(db, stranger)).length, 0, "a user outside the workspace: nothing");
    t.equal((await notificationsOf(db, owner.userId)).length, 0, "the author is not notified of their own mention");
    t.equal((await notificationsOf(db, users.sharedGuest!.userId)).length, 1, "the guest the project is shared with is notified");
  }),
);

t.test("editing a comment notifies only newly added mentions", (t) =>
  forEachDialect(t, "edit mentions", async (t, db) => {
    const { run, attempt } = slice2aRuntime(t, db);
    const { owner, project, users } = await coreFixture(run, {
      alice: { workspace: "member", project: "viewer" },
      dave: { workspace: "member", project: "commenter" },
    });
    const alice = users.alice!.userId;
    const dave = users.dave!.userId;
    const task = await run(createTask(owner, project.id, { title: "Review" }));
    const { comment } = await run(addComment(owner, task.id, { body: "hi @alice", mentions: [alice], clientMutationId: "c1" }));
    await run(drainOutbox());
    const edited = await run(editComment(owner, comment.id, { body: "hi @alice @dave", mentions: [alice, dave] }));
    t.same(edited.addedMentions, [dave], "only dave is new");
    await run(drainOutbox());
    t.equal((await notificationsOf(db, alice)).length, 1, "alice keeps her single notification");
    t.equal((await notificationsOf(db, dave)).length, 1, "dave is notified once");
    await run(editComment(owner, comment.id, { body: "hello @alice @dave", mentions: [dave, alice] }));
    await run(drainOutbox());
    t.equal((await notificationsOf(db, alice)).length + (await notificationsOf(db, dave)).length, 2, "a text-only edit notifies nobody");
    const edits = await outboxEvents(db, "CommentEdited");
    t.equal(edits.length, 2, "each accepted edit is one CommentEdited");
    const stored = await db.db.selectFrom("pm_comments").select(["body", "version"]).where("id", "=", comment.id).executeTakeFirstOrThrow();
    t.equal(stored.body, "hello @alice @dave");
    t.equal(Number(stored.version), 3, "each edit advanced the comment version");
    const byOther = await attempt(editComment(users.dave!, comment.id, { body: "hijack", mentions: [] }));
    t.match(byOther, { ok: false, error: { _tag: "Forbidden" } }, "only the author may edit");
    const byOutsider = await attempt(editComment({ kind: "user", userId: crypto.randomUUID() }, comment.id, { body: "x", mentions: [] }));
    t.match(byOutsider, { ok: false, error: { _tag: "NotFound" } }, "someone who cannot see it gets 404");
  }),
);
