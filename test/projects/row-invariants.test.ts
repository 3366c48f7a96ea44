/**
 * The module's state rules hold in the database itself, not only in the code that writes the
 * rows (a second writer, a script or a buggy repository cannot break them): SQLite and Postgres.
 *
 * - Tasks (spec, States; Relationships 1, 3, 5; Versioning): a status moves only along the
 *   workflow table (docs/decisions.md: todo → in_progress → done, in_progress → todo,
 *   done → todo); "a task never crosses workspace or project"; every accepted change is a new,
 *   greater version ("projections use it to drop stale events"); tasks are "soft-deleted and
 *   kept for restore and audit", never removed.
 */
import t from "tap";
import { sql } from "kysely";
import { addProjectMember, createProject } from "../../core/projects/Projects.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { updateTask } from "../../core/projects/UpdateTask.js";
import { randomUUID } from "node:crypto";
import { addWorkspaceMember, createWorkspace } from "../../core/projects/Workspaces.js";
import { createShareLink, revokeShareLink } from "../../core/projects/ShareLinks.js";
import { addComment } from "../../core/projects/Comments.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { projectsMigrations } from "../../adapters/sql/projects/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { inviteToWorkspace } from "../../core/projects/Invitations.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

const outcome = (run: () => Promise<unknown>) =>
  run().then(
    () => "accepted",
    () => "refused",
  );

t.test("a task's status moves only along the workflow table, also in the database", (t) =>
  forEachDialect(t, "task status moves", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const task = await run(createTask(owner, project.id, { title: "Ship it" }));
    const move = (to: string) => () => sql`UPDATE pm_tasks SET status = ${to}, version = version + 1 WHERE id = ${task.id}`.execute(db.db);
    t.equal(await outcome(move("done")), "refused", "todo → done (skipping the work) is refused");
    t.equal(await outcome(move("in_progress")), "accepted", "todo → in_progress");
    t.equal(await outcome(move("done")), "accepted", "in_progress → done");
    t.equal(await outcome(move("in_progress")), "refused", "done → in_progress (without reopening) is refused");
    t.equal(await outcome(move("todo")), "accepted", "done → todo (reopen)");
    // The code's own moves still pass through the trigger.
    const current = (await db.db.selectFrom("pm_tasks").select("version").where("id", "=", task.id).executeTakeFirstOrThrow()).version;
    const moved = await run(updateTask(owner, task.id, Number(current), { status: "in_progress" }));
    t.equal(moved.status, "in_progress", "a PATCH along the table is accepted");
  }),
);

t.test("a task never crosses workspace or project, every change is a new version, and a task is never removed (database)", (t) =>
  forEachDialect(t, "task rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const { project: other } = await run(createProject(owner, workspace.id, { name: "Other" }));
    const task = await run(createTask(owner, project.id, { title: "Stay here" }));
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    t.equal(
      await outcome(write(sql`UPDATE pm_tasks SET project_id = ${other.id}, version = version + 1 WHERE id = ${task.id}`)),
      "refused",
      "moving a task to another project of the same workspace is refused",
    );
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET created_by = 'someone else', version = version + 1 WHERE id = ${task.id}`)), "refused", "its creator never changes");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Silent' WHERE id = ${task.id}`)), "refused", "a change without a new version is refused");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Older', version = 0 + 1 WHERE id = ${task.id} AND version = 1`)), "refused", "a version never stays or goes back");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Newer', version = version + 1 WHERE id = ${task.id}`)), "accepted", "a change with the next version is accepted");
    t.equal(await outcome(write(sql`DELETE FROM pm_tasks WHERE id = ${task.id}`)), "refused", "a task is never removed (soft delete only)");
    const row = await db.db.selectFrom("pm_tasks").select(["project_id", "title", "version"]).where("id", "=", task.id).executeTakeFirstOrThrow();
    t.same({ ...row, version: Number(row.version) }, { project_id: project.id, title: "Newer", version: 2 }, "only the accepted change is stored");
  }),
);

/**
 * Share links (spec, Authentication 4: "share links are revoked when membership changes"; What
 * the service does: "permission ... actions record actor and reason"; docs/decisions.md: a link
 * is never deleted, the first revocation's actor and reason stand, 30 days at most): the
 * database refuses un-revoking a link, rewriting its revocation, re-pointing it at another
 * project or creator or token, extending its lifetime, and deleting it.
 */
t.test("a revoked share link stays revoked, its record is kept and never re-pointed, its lifetime never extended (database)", (t) =>
  forEachDialect(t, "share link rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const { project: other } = await run(createProject(owner, workspace.id, { name: "Other" }));
    const live = (await run(createShareLink(owner, project.id, {}))).link;
    const revoked = (await run(createShareLink(owner, project.id, {}))).link;
    await run(revokeShareLink(owner, revoked.id, { reason: "leaked" }));
    const f = featuresFor(db);
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    const later = f.timeToDb(new Date(live.expiresAt.getTime() + 86_400_000));
    const earlier = f.timeToDb(new Date(live.expiresAt.getTime() - 60_000));
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET revoked_at = NULL, revoked_reason = NULL, revoked_by = NULL WHERE id = ${revoked.id}`)), "refused", "a revoked link is never live again");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET revoked_reason = 'other', revoked_by = 'someone' WHERE id = ${revoked.id}`)), "refused", "the first revocation's actor and reason stand");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET project_id = ${other.id} WHERE id = ${live.id}`)), "refused", "a link never moves to another project");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET created_by = 'someone' WHERE id = ${live.id}`)), "refused", "its creator never changes");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET token_hash = ${"0".repeat(64)} WHERE id = ${live.id}`)), "refused", "its token never changes");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET expires_at = ${later} WHERE id = ${live.id}`)), "refused", "its lifetime is never extended");
    t.equal(await outcome(write(sql`DELETE FROM pm_share_links WHERE id = ${revoked.id}`)), "refused", "a link is never deleted");
    t.equal(await outcome(write(sql`UPDATE pm_share_links SET expires_at = ${earlier} WHERE id = ${live.id}`)), "accepted", "a lifetime may be shortened");
    await run(revokeShareLink(owner, live.id, { reason: "done" }));
    const rows = await db.db.selectFrom("pm_share_links").select(["id", "revoked_reason"]).orderBy("id").execute();
    t.same(rows, [{ id: live.id, revoked_reason: "done" }, { id: revoked.id, revoked_reason: "leaked" }].sort((a, b) => (a.id < b.id ? -1 : 1)), "revocation through the code still works");
  }),
);

/**
 * Attachments and exports (docs/decisions.md, "Project management (slice 2)": attachment states
 * pending → quarantined → clean / infected / scan_failed by conditional updates, never guessed
 * clean; staging is purged from pending only; an export runs pending → done | failed): the
 * database refuses any other move — above all an infected or failed scan becoming downloadable —
 * a change of what the row holds (task, uploader, object, size, checksum; the export's
 * requester and object), and deleting an attachment that is not being purged.
 */
t.test("an attachment's scan verdict and an export's outcome are final, and their records keep what they hold (database)", (t) =>
  forEachDialect(t, "attachment and export rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const task = await run(createTask(owner, project.id, { title: "With files" }));
    const other = await run(createTask(owner, project.id, { title: "Another" }));
    const f = featuresFor(db);
    const at = f.timeToDb(new Date());
    const attachment = (n: number, status: string) => ({
      id: randomUUID(),
      workspace_id: workspace.id,
      project_id: project.id,
      task_id: task.id,
      uploaded_by: owner.userId,
      filename: `f${n}.txt`,
      content_type: "text/plain",
      size: 10,
      sha256: "a".repeat(64),
      object_key: `pm/${workspace.id}/attachments/${n}`,
      status,
      upload_expires_at: at,
      created_at: at,
    });
    const infected = attachment(1, "pending");
    const pending = attachment(2, "pending");
    await db.db.insertInto("pm_attachments").values([infected, pending]).execute();
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    const setStatus = (id: string, status: string) => write(sql`UPDATE pm_attachments SET status = ${status} WHERE id = ${id}`);
    t.equal(await outcome(setStatus(infected.id, "clean")), "refused", "pending → clean (never scanned) is refused");
    t.equal(await outcome(setStatus(infected.id, "quarantined")), "accepted", "pending → quarantined");
    t.equal(await outcome(setStatus(infected.id, "infected")), "accepted", "quarantined → infected");
    t.equal(await outcome(setStatus(infected.id, "clean")), "refused", "infected → clean is refused");
    t.equal(await outcome(setStatus(infected.id, "quarantined")), "refused", "a verdict never goes back to quarantine");
    t.equal(await outcome(write(sql`DELETE FROM pm_attachments WHERE id = ${infected.id}`)), "refused", "an attachment that is not being purged is never deleted");
    t.equal(await outcome(write(sql`UPDATE pm_attachments SET task_id = ${other.id} WHERE id = ${pending.id}`)), "refused", "an attachment never moves to another task");
    t.equal(await outcome(write(sql`UPDATE pm_attachments SET sha256 = ${"b".repeat(64)}, size = 11 WHERE id = ${pending.id}`)), "refused", "what was uploaded never changes");
    t.equal(await outcome(write(sql`UPDATE pm_attachments SET object_key = 'elsewhere' WHERE id = ${pending.id}`)), "refused", "nor where it is stored");
    t.equal(await outcome(setStatus(pending.id, "purging")), "accepted", "pending → purging (expired staging)");
    t.equal(await outcome(setStatus(pending.id, "quarantined")), "refused", "a purge is not undone");
    t.equal(await outcome(write(sql`DELETE FROM pm_attachments WHERE id = ${pending.id}`)), "accepted", "a purging attachment is deleted");

    const exportRow = (n: number) => ({
      id: randomUUID(),
      workspace_id: workspace.id,
      requested_by: owner.userId,
      status: "pending",
      object_key: `pm/${workspace.id}/exports/${n}`,
      created_at: at,
    });
    const failed = exportRow(1);
    await db.db.insertInto("pm_exports").values(failed).execute();
    t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'failed', error = 'boom' WHERE id = ${failed.id}`)), "accepted", "pending → failed");
    t.equal(
      await outcome(write(sql`UPDATE pm_exports SET status = 'done', size = 1, sha256 = ${"c".repeat(64)}, completed_at = ${at} WHERE id = ${failed.id}`)),
      "refused",
      "failed → done is refused",
    );
    t.equal(await outcome(write(sql`UPDATE pm_exports SET status = 'pending' WHERE id = ${failed.id}`)), "refused", "failed → pending is refused");
    t.equal(await outcome(write(sql`UPDATE pm_exports SET requested_by = 'someone' WHERE id = ${failed.id}`)), "refused", "its requester never changes");
  }),
);

/**
 * Comments and notifications (spec, Relationships 2: comments "inherit task access"; Resources,
 * Notification: "event_id unique together with recipient_id", read_at "null means unread";
 * Conventions: `client_mutation_id` unique per author and task): the database refuses moving a
 * comment to another task or author, changing its client mutation id, an edit that does not
 * advance its version, and deleting it; and re-addressing a notification or making a read one
 * unread again.
 */
t.test("a comment keeps its task, author and client mutation id, every edit is a new version; a notification keeps its recipient and event (database)", (t) =>
  forEachDialect(t, "comment and notification rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const task = await run(createTask(owner, project.id, { title: "Discuss" }));
    const other = await run(createTask(owner, project.id, { title: "Elsewhere" }));
    const { comment } = await run(addComment(owner, task.id, { body: "First", mentions: [], clientMutationId: "m1" }));
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    t.equal(await outcome(write(sql`UPDATE pm_comments SET task_id = ${other.id} WHERE id = ${comment.id}`)), "refused", "a comment never moves to another task");
    t.equal(await outcome(write(sql`UPDATE pm_comments SET author_id = 'someone', version = version + 1 WHERE id = ${comment.id}`)), "refused", "its author never changes");
    t.equal(await outcome(write(sql`UPDATE pm_comments SET client_mutation_id = 'm2', version = version + 1 WHERE id = ${comment.id}`)), "refused", "its client mutation id never changes");
    t.equal(await outcome(write(sql`UPDATE pm_comments SET body = 'Rewritten' WHERE id = ${comment.id}`)), "refused", "an edit without a new version is refused");
    t.equal(await outcome(write(sql`UPDATE pm_comments SET body = 'Edited', version = version + 1 WHERE id = ${comment.id}`)), "accepted", "an edit at the next version is accepted");
    t.equal(await outcome(write(sql`DELETE FROM pm_comments WHERE id = ${comment.id}`)), "refused", "a comment is never deleted");

    const f = featuresFor(db);
    const at = f.timeToDb(new Date());
    const notification = {
      id: randomUUID(),
      workspace_id: workspace.id,
      project_id: project.id,
      recipient_id: owner.userId,
      event_id: randomUUID(),
      kind: "mention",
      data: f.jsonToDb({ task_id: task.id }),
      created_at: at,
    };
    await db.db.insertInto("pm_notifications").values(notification).execute();
    t.equal(await outcome(write(sql`UPDATE pm_notifications SET recipient_id = 'someone' WHERE id = ${notification.id}`)), "refused", "a notification is never re-addressed");
    t.equal(await outcome(write(sql`UPDATE pm_notifications SET event_id = ${randomUUID()} WHERE id = ${notification.id}`)), "refused", "nor moved to another event");
    t.equal(await outcome(write(sql`UPDATE pm_notifications SET read_at = ${at} WHERE id = ${notification.id}`)), "accepted", "unread → read");
    t.equal(await outcome(write(sql`UPDATE pm_notifications SET read_at = NULL WHERE id = ${notification.id}`)), "refused", "read → unread is refused");
  }),
);

/**
 * Spec (Authentication 2: "Guest — explicitly shared projects only"; docs/decisions.md: guests
 * cannot be project admin): the database refuses a project-admin membership for a workspace
 * guest and a demotion to guest of a user who still administers a project; the demotion through
 * the code lowers those roles first, so it still succeeds.
 */
t.test("a workspace guest is never a project admin (database)", (t) =>
  forEachDialect(t, "guest admins", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const guest = newUser();
    const admin = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: guest.userId, role: "guest" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: admin.userId, role: "member" }));
    await run(addProjectMember(owner, project.id, { userId: guest.userId, role: "viewer" }));
    await run(addProjectMember(owner, project.id, { userId: admin.userId, role: "admin" }));
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    t.equal(await outcome(write(sql`UPDATE pm_project_members SET role = 'admin' WHERE project_id = ${project.id} AND user_id = ${guest.userId}`)), "refused", "a guest's membership never becomes admin");
    t.equal(
      await outcome(write(sql`UPDATE pm_workspace_members SET role = 'guest' WHERE workspace_id = ${workspace.id} AND user_id = ${admin.userId}`)),
      "refused",
      "a project admin is not made a guest behind its project roles' back",
    );
    await run(addWorkspaceMember(owner, workspace.id, { userId: admin.userId, role: "guest", reason: "contract ended" }));
    const role = await db.db.selectFrom("pm_project_members").select("role").where("project_id", "=", project.id).where("user_id", "=", admin.userId).executeTakeFirstOrThrow();
    t.equal(role.role, "contributor", "the demotion through the code lowers the admin role first, and succeeds");
  }),
);

/**
 * docs/decisions.md (share links: "7 days by default, 30 at most"): the database refuses a link
 * created to live longer than 30 days, as it refuses extending one (migration 12).
 */
t.test("a share link never lives longer than 30 days from its creation (database)", (t) =>
  forEachDialect(t, "share link lifetime", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const f = featuresFor(db);
    const created = new Date("2026-01-01T00:00:00.000Z");
    const row = (days: number, n: number) => ({
      id: randomUUID(),
      workspace_id: workspace.id,
      project_id: project.id,
      created_by: owner.userId,
      token_hash: String(n).repeat(64).slice(0, 64),
      created_at: f.timeToDb(created),
      expires_at: f.timeToDb(new Date(created.getTime() + days * 86_400_000)),
    });
    const insert = (value: ReturnType<typeof row>) => () => db.db.insertInto("pm_share_links").values(value as never).execute();
    t.equal(await outcome(insert(row(30, 1))), "accepted", "30 days is the longest lifetime");
    t.equal(await outcome(insert(row(31, 2))), "refused", "31 days is refused");
  }),
);

/**
 * Workspace invitations (consent before membership): one pending invitation per user and
 * workspace; a status and role the code knows; an accepted, declined, cancelled or expired
 * invitation never changes again; a pending one keeps whom it invites, to what, and by whom,
 * and its lifetime is never extended; invitations are kept, for audit (projects migration 23).
 */
t.test("an invitation is pending once per user and workspace, and a decided invitation never changes (database)", (t) =>
  forEachDialect(t, "invitation rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const f = featuresFor(db);
    const created = new Date("2026-01-01T00:00:00.000Z");
    const invitee = randomUUID();
    const row = (overrides: Record<string, unknown> = {}) => ({
      id: randomUUID(),
      workspace_id: workspace.id,
      user_id: invitee,
      role: "member",
      status: "pending",
      invited_by: owner.userId,
      reason: "joins",
      created_at: f.timeToDb(created),
      expires_at: f.timeToDb(new Date(created.getTime() + 14 * 86_400_000)),
      ...overrides,
    });
    const insert = (value: ReturnType<typeof row>) => () => db.db.insertInto("pm_workspace_invitations").values(value as never).execute();
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    const first = row();
    t.equal(await outcome(insert(first)), "accepted", "a pending invitation");
    t.equal(await outcome(insert(row())), "refused", "a second pending invitation of the same user to the same workspace");
    t.equal(await outcome(insert(row({ role: "admin" }))), "refused", "a role that is not a workspace role");
    t.equal(await outcome(insert(row({ status: "maybe" }))), "refused", "a status the code does not know");
    const decided = { status: "declined", decided_at: f.timeToDb(created), decided_by: invitee, decided_reason: "no thanks" };
    t.equal(await outcome(insert(row({ user_id: randomUUID(), status: "accepted" }))), "refused", "a decided invitation says when, by whom and why");
    t.equal(await outcome(write(sql`UPDATE pm_workspace_invitations SET role = 'owner' WHERE id = ${first.id}`)), "refused", "a pending invitation's role never changes");
    const later = f.timeToDb(new Date(created.getTime() + 20 * 86_400_000));
    t.equal(await outcome(write(sql`UPDATE pm_workspace_invitations SET expires_at = ${later} WHERE id = ${first.id}`)), "refused", "its lifetime is never extended");
    t.equal(
      await outcome(write(sql`UPDATE pm_workspace_invitations SET status = ${decided.status}, decided_at = ${decided.decided_at}, decided_by = ${decided.decided_by}, decided_reason = ${decided.decided_reason} WHERE id = ${first.id}`)),
      "accepted",
      "pending -> declined",
    );
    for (const status of ["pending", "accepted", "cancelled"]) {
      t.equal(await outcome(write(sql`UPDATE pm_workspace_invitations SET status = ${status} WHERE id = ${first.id}`)), "refused", `declined -> ${status} is refused`);
    }
    t.equal(await outcome(write(sql`UPDATE pm_workspace_invitations SET decided_reason = 'changed my mind' WHERE id = ${first.id}`)), "refused", "the decision's reason stands");
    t.equal(await outcome(write(sql`DELETE FROM pm_workspace_invitations WHERE id = ${first.id}`)), "refused", "an invitation is kept, for audit");
    t.equal(await outcome(insert(row())), "accepted", "a new pending invitation once the old one is decided");
  }),
);

/**
 * Projects migration 24 (an invitee's in-app notification of a workspace invitation): a
 * database with mention notifications keeps them, every column, index and rule, through the
 * rebuild (SQLite) or the altered table (Postgres); afterwards the database holds the new kind's
 * rules: a known kind; a mention has a project and no invitation; a workspace invitation's
 * notification has an invitation and no project, and its recipient is that invitation's invitee.
 */
const beforeTwentyFour = testModules.map((m) => (m.name === "projects" ? { name: "projects", migrations: projectsMigrations.filter((v) => v.version < 24) } : m));

t.test("migration 24 keeps the mention notifications and ties a notification's kind to its project or invitation (database)", (t) =>
  forEachDialect(
    t,
    "notification kinds",
    async (t, db) => {
      const { run } = projectsRuntime(t, db);
      const owner = newUser();
      const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
      const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
      const f = featuresFor(db);
      const at = f.timeToDb(new Date("2026-01-02T03:04:05.678Z"));
      const mention = (overrides: Record<string, unknown> = {}) => ({
        id: randomUUID(),
        workspace_id: workspace.id,
        project_id: project.id,
        recipient_id: owner.userId,
        event_id: randomUUID(),
        kind: "mention",
        data: f.jsonToDb({ task_id: "t1", comment_id: "c1", actor_id: "a1", task_title: "Plan", excerpt: "hi" }),
        created_at: at,
        ...overrides,
      });
      const kept = [mention(), mention({ read_at: at })];
      await db.db.insertInto("pm_notifications").values(kept).execute();
      const before = await db.db.selectFrom("pm_notifications").selectAll().orderBy("id").execute();

      await migrate(db, testModules);
      const after = await db.db.selectFrom("pm_notifications").selectAll().orderBy("id").execute();
      t.same(after, before.map((row) => ({ ...row, invitation_id: null })), "every mention notification is kept as it was");
      const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
      const insert = (row: Record<string, unknown>) => () => db.db.insertInto("pm_notifications").values(row as never).execute();
      t.equal(await outcome(insert(mention({ id: randomUUID(), event_id: kept[0]!.event_id }))), "refused", "still one per recipient and event");
      t.equal(await outcome(write(sql`UPDATE pm_notifications SET recipient_id = 'someone' WHERE id = ${kept[0]!.id}`)), "refused", "still never re-addressed");
      t.equal(await outcome(write(sql`UPDATE pm_notifications SET read_at = NULL WHERE id = ${kept[1]!.id}`)), "refused", "and a read one stays read");
      const indexes =
        db.dialect === "sqlite"
          ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pm_notifications' AND name NOT LIKE 'sqlite_autoindex%'`.execute(db.db)
          : await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'pm_notifications' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'`.execute(db.db);
      t.same(indexes.rows.map((r) => r.name).sort(), ["pm_notifications_feed", "pm_notifications_unread"], "the feed and unread indexes are there");

      const invitee = newUser();
      const invitation = await run(inviteToWorkspace(owner, workspace.id, { userId: invitee.userId, role: "member" }));
      const notice = (overrides: Record<string, unknown> = {}) =>
        mention({ id: randomUUID(), event_id: randomUUID(), kind: "workspace_invitation", project_id: null, invitation_id: invitation.id, recipient_id: invitee.userId, data: f.jsonToDb({}), ...overrides });
      t.equal(await outcome(insert(mention({ id: randomUUID(), event_id: randomUUID(), kind: "like" }))), "refused", "a kind the code does not know");
      t.equal(await outcome(insert(mention({ id: randomUUID(), event_id: randomUUID(), project_id: null }))), "refused", "a mention without its project");
      t.equal(await outcome(insert(mention({ id: randomUUID(), event_id: randomUUID(), invitation_id: invitation.id }))), "refused", "a mention naming an invitation");
      t.equal(await outcome(insert(notice({ project_id: project.id }))), "refused", "an invitation's notification in a project");
      t.equal(await outcome(insert(notice({ invitation_id: null }))), "refused", "an invitation's notification without its invitation");
      t.equal(await outcome(insert(notice({ recipient_id: owner.userId }))), "refused", "an invitation's notification to anyone but its invitee");
      t.equal(await outcome(insert(notice())), "accepted", "the invitee's notification of its invitation");
    },
    beforeTwentyFour,
  ),
);
