/**
 * Consent before membership (spec: "the workspace is the tenant boundary"; "Invitations ... are
 * rate-limited"; membership actions record actor and reason): an owner invites a user
 * (POST /v1/workspaces/:id/invitations) and the membership is written only when the invitee
 * accepts (POST /v1/invitations/:id/accept), with the invited role, through the member add's path
 * (its audit and WorkspaceMembershipGranted). A declined, cancelled or expired invitation makes no
 * member; only the invitee sees, accepts or declines it (anyone else: 404); an owner lists and
 * cancels its workspace's invitations; the direct add of a non-member answers 409
 * invitation_required; the invitee is told by e-mail while the invitation is open, and in-app by a
 * notification listed and counted only while it is pending and unexpired. Accepting races
 * cancelling and declining with one winner — SQLite and
 * Postgres; the race on real Postgres connections.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { sql } from "kysely";
import { makeFolderMailer } from "../../adapters/mail/FolderMailer.js";
import { sendInvitationEmail } from "../../core/projects/InvitationEmail.js";
import { rebindPort } from "../../hosts/PortBindings.js";
import { Mailer } from "../../ports/Mailer.js";
import { WorkspaceInvitationId } from "../../core/projects/model/Ids.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { forEachDialectConfig, testConfig } from "../hosts/support.js";
import { inviteAndAccept, startProjectsServer, type Client } from "./support.js";

const day = 86_400_000;

const invite = (owner: Client, workspaceId: string, invitee: Client, role = "member", headers: Record<string, string> = {}) =>
  owner.call("POST", `/v1/workspaces/${workspaceId}/invitations`, { user_id: invitee.userId, role, reason: "joins the launch" }, headers);

forEachDialectConfig(t, "an invitation makes a member only when the invitee accepts it, with the invited role", async (t, config) => {
  // Mail to a folder of this test's own (the module's default is a shared temp folder).
  const mailFolder = mkdtempSync(join(tmpdir(), "domainkit-invitation-mail-"));
  t.teardown(() => rmSync(mailFolder, { recursive: true, force: true }));
  const { client, db } = await startProjectsServer(t, config, { rebind: (container) => rebindPort(container, Mailer, makeFolderMailer({ folder: mailFolder })) });
  const owner = await client();
  const invitee = await client();
  const stranger = await client();
  const workspace = (await owner.call("POST", "/v1/workspaces", { name: "Acme" })).body;

  const invited = await invite(owner, workspace.id, invitee, "owner", { "Idempotency-Key": "invite-1" });
  t.equal(invited.status, 201, "an owner invites");
  t.match(invited.body, { workspace_id: workspace.id, user_id: invitee.userId, role: "owner", status: "pending", invited_by: owner.userId });
  t.equal(Date.parse(invited.body.expires_at) - Date.parse(invited.body.created_at), 14 * day, "it expires after 14 days");
  const replay = await invite(owner, workspace.id, invitee, "owner", { "Idempotency-Key": "invite-1" });
  t.match(replay, { status: 201, body: { id: invited.body.id } }, "a retry with the same key answers the same invitation");
  t.equal(replay.headers.get("idempotent-replayed"), "true");
  t.equal((await invitee.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404, "an invitation is not a membership");
  t.match(await invite(owner, workspace.id, invitee, "member"), { status: 409, body: { code: "invitation_pending" } }, "one pending invitation per user");
  t.match(await invite(owner, workspace.id, owner), { status: 409, body: { code: "already_member" } }, "a member is not invited");

  // The invitee's e-mail (the reference server's folder mailer), from its durable job.
  const mailFile = join(mailFolder, `_${invited.body.id}_domainkit_.eml`);
  for (let waited = 0; !existsSync(mailFile) && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  const mail = existsSync(mailFile) ? readFileSync(mailFile, "utf8") : "";
  t.match(mail, `${invitee.userId}@users.invalid`, "the invitee is told by e-mail");
  t.match(mail, /invited to the workspace "Acme"/, "naming the workspace");
  t.match(mail, `as owner`, "and the role");
  t.match(mail, `POST /v1/invitations/${invited.body.id}/accept`, "and how to accept");

  const mine = await invitee.call("GET", "/v1/invitations");
  t.same(mine.body.data.map((i: { id: string }) => i.id), [invited.body.id], "the invitee lists its pending invitation");
  t.equal(mine.body.data[0]?.workspace_name, "Acme", "named by the workspace it invites to");
  t.same((await stranger.call("GET", "/v1/invitations")).body.data, [], "nobody else sees it");
  const listed = await owner.call("GET", `/v1/workspaces/${workspace.id}/invitations`);
  t.same(listed.body.data.map((i: { id: string; status: string }) => [i.id, i.status]), [[invited.body.id, "pending"]], "the owner lists its workspace's invitations");

  for (const [who, caller] of [["the inviting owner", owner], ["a stranger", stranger]] as const) {
    t.equal((await caller.call("POST", `/v1/invitations/${invited.body.id}/accept`)).status, 404, `${who} cannot accept it`);
    t.equal((await caller.call("POST", `/v1/invitations/${invited.body.id}/decline`)).status, 404, `${who} cannot decline it`);
  }
  t.equal((await invitee.call("POST", `/v1/invitations/${crypto.randomUUID()}/accept`)).status, 404, "an unknown invitation: 404");

  const accepted = await invitee.call("POST", `/v1/invitations/${invited.body.id}/accept`);
  t.match(accepted, { status: 200, body: { invitation: { id: invited.body.id, status: "accepted" }, member: { user_id: invitee.userId, role: "owner" } } });
  t.match(await invitee.call("GET", `/v1/workspaces/${workspace.id}`), { status: 200, body: { role: "owner" } }, "the invitee is a member with the invited role");
  t.match(await invitee.call("POST", `/v1/invitations/${invited.body.id}/accept`), { status: 409, body: { code: "invitation_not_pending" } }, "a second accept: 409");
  t.match(await invitee.call("POST", `/v1/invitations/${invited.body.id}/decline`), { status: 409, body: { code: "invitation_not_pending" } }, "no decline after an accept");
  t.same((await invitee.call("GET", "/v1/invitations")).body.data, [], "an accepted invitation is no longer pending");

  const audit = await db.db
    .selectFrom("pm_membership_audit")
    .select(["actor_id", "action", "role", "reason"])
    .where("workspace_id", "=", workspace.id)
    .where("user_id", "=", invitee.userId)
    .execute();
  t.match(audit, [{ actor_id: owner.userId, action: "workspace_member.added", role: "owner", reason: /invitation/ }], "the membership is audited: the inviting owner and why");
  const events = (await db.db.selectFrom("outbox").select("event").where("type", "=", "WorkspaceMembershipGranted").execute())
    .map((r) => featuresFor(db).jsonFromDb(r.event) as { aggregate_id: string; actor_id: string; data: unknown })
    .filter((e) => e.aggregate_id === `workspace:${workspace.id}:member:${invitee.userId}`);
  t.match(events, [{ actor_id: owner.userId, data: { role: "owner", user_id: invitee.userId } }], "WorkspaceMembershipGranted, as a member add produces");
  const stored = await db.db.selectFrom("pm_workspace_invitations").select(["status", "decided_by", "invited_by", "reason"]).where("id", "=", invited.body.id).executeTakeFirstOrThrow();
  t.match(stored, { status: "accepted", decided_by: invitee.userId, invited_by: owner.userId, reason: "joins the launch" }, "the invitation records who invited, why, and who accepted");
});

forEachDialectConfig(t, "a declined, cancelled or expired invitation makes no member; another tenant's invitation answers 404; no direct adds", async (t, config, dialect) => {
  const { server, client, db } = await startProjectsServer(t, config);
  const owner = await client();
  const workspace = (await owner.call("POST", "/v1/workspaces", { name: "Acme" })).body;
  const [decliner, cancelled, late] = [await client(), await client(), await client()];
  const mailOf = (invitationId: string) => server.core.runtime.runPromise(sendInvitationEmail(WorkspaceInvitationId.make(invitationId)));

  const declined = (await invite(owner, workspace.id, decliner)).body;
  t.match(await decliner.call("POST", `/v1/invitations/${declined.id}/decline`), { status: 200, body: { status: "declined" } }, "the invitee declines");
  t.match(await decliner.call("POST", `/v1/invitations/${declined.id}/decline`), { status: 200, body: { status: "declined" } }, "a second decline changes nothing");
  t.match(await decliner.call("POST", `/v1/invitations/${declined.id}/accept`), { status: 409, body: { code: "invitation_not_pending" } }, "no accept after a decline");
  t.equal((await decliner.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404, "a declined invitation makes no member");
  t.equal((await invite(owner, workspace.id, decliner)).status, 201, "a declined user may be invited again");

  const toCancel = (await invite(owner, workspace.id, cancelled)).body;
  // Another workspace's owner: its own workspace's path or this one's, the invitation is not found.
  const intruder = await client();
  const theirs = (await intruder.call("POST", "/v1/workspaces", { name: "Theirs" })).body;
  t.equal((await intruder.call("DELETE", `/v1/workspaces/${theirs.id}/invitations/${toCancel.id}`)).status, 404, "another tenant's invitation: 404");
  t.equal((await intruder.call("DELETE", `/v1/workspaces/${workspace.id}/invitations/${toCancel.id}`)).status, 404, "a workspace of another tenant: 404");
  t.equal((await intruder.call("GET", `/v1/workspaces/${workspace.id}/invitations`)).status, 404, "its invitations are not listed to others");
  t.same((await intruder.call("GET", `/v1/workspaces/${theirs.id}/invitations`)).body.data, [], "nor in the intruder's own workspace");
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspace.id}/invitations/${toCancel.id}?reason=wrong%20person`)).status, 204, "the owner cancels");
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspace.id}/invitations/${toCancel.id}`)).status, 204, "cancelling again: 204");
  t.match(await cancelled.call("POST", `/v1/invitations/${toCancel.id}/accept`), { status: 409, body: { code: "invitation_not_pending" } }, "no accept after a cancel");
  t.equal((await cancelled.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404, "a cancelled invitation makes no member");
  t.equal(await mailOf(toCancel.id), "skipped", "its e-mail job, run after the cancel, sends nothing");
  t.equal(await mailOf(declined.id), "skipped", "nor a declined one's");
  t.match(
    await db.db.selectFrom("pm_workspace_invitations").select(["status", "decided_by", "decided_reason"]).where("id", "=", toCancel.id).executeTakeFirstOrThrow(),
    { status: "cancelled", decided_by: owner.userId, decided_reason: "wrong person" },
    "the cancellation records who and why",
  );

  const expiring = (await invite(owner, workspace.id, late)).body;
  // Its lifetime shortened to a millisecond (the database allows shortening, never extending).
  const f = featuresFor(db);
  await sql`UPDATE pm_workspace_invitations SET expires_at = ${f.timeToDb(new Date(Date.parse(expiring.created_at) + 1))} WHERE id = ${expiring.id}`.execute(db.db);
  t.same((await late.call("GET", "/v1/invitations")).body.data, [], `an expired invitation is not listed [${dialect}]`);
  t.match(await late.call("POST", `/v1/invitations/${expiring.id}/accept`), { status: 410, body: { code: "invitation_expired" } }, "accepting it: 410");
  t.equal((await late.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404, "an expired invitation makes no member");
  const ownersView = (await owner.call("GET", `/v1/workspaces/${workspace.id}/invitations?limit=100`)).body.data as Array<{ id: string; status: string }>;
  t.equal(ownersView.find((i) => i.id === expiring.id)?.status, "expired", "the owners' list shows it expired");
  t.equal((await invite(owner, workspace.id, late)).status, 201, "the user may be invited again");

  await t.test("an invitation holds only while its inviter is an owner: a demotion or removal cancels the inviter's pending ones", async (t) => {
    for (const [how, endOwnership] of [
      ["demoted", (coOwner: Client) => owner.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: coOwner.userId, role: "member" })],
      ["removed", (coOwner: Client) => owner.call("DELETE", `/v1/workspaces/${workspace.id}/members/${coOwner.userId}`)],
    ] as const) {
      const [coOwner, invitee, other] = [await client(), await client(), await client()];
      await inviteAndAccept(owner, workspace.id, coOwner, "owner");
      const invitation = (await invite(coOwner, workspace.id, invitee, "owner")).body;
      const kept = (await invite(owner, workspace.id, other, "member")).body;
      t.ok([200, 204].includes((await endOwnership(coOwner)).status), `the inviter is ${how}`);
      t.match(await invitee.call("POST", `/v1/invitations/${invitation.id}/accept`), { status: 409, body: { code: "invitation_not_pending" } }, `${how}: its invitation no longer makes a member`);
      t.equal((await invitee.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404);
      t.same((await invitee.call("GET", "/v1/invitations")).body.data, [], `${how}: it left the invitee's list`);
      const listed = (await owner.call("GET", `/v1/workspaces/${workspace.id}/invitations?limit=100`)).body.data as Array<Record<string, unknown>>;
      t.match(listed.find((i) => i.id === invitation.id), { status: "cancelled", decided_by: owner.userId, decided_reason: "the inviter is no longer an owner" }, `${how}: cancelled, by whom and why`);
      t.match(listed.find((i) => i.id === kept.id), { status: "pending" }, `${how}: another owner's invitation stands`);
    }
  });

  await t.test("the invitee is notified in-app of an invitation only while it is pending and unexpired; nobody else sees or marks it", async (t) => {
    type Listed = { id: string; kind: string; invitation_id: string | null };
    const invitationNotices = async (who: Client) =>
      ((await who.call("GET", "/v1/notifications?limit=100")).body.data as Listed[]).filter((n) => n.kind === "workspace_invitation");
    const unread = async (who: Client) => (await who.call("GET", "/v1/notifications/unread-count")).body.count;
    const [accepting, declining, cancelledOne, expiring, stranger] = [await client(), await client(), await client(), await client(), await client()];
    const created = new Map<Client, { id: string; created_at: string }>();
    for (const who of [accepting, declining, cancelledOne, expiring]) created.set(who, (await invite(owner, workspace.id, who, "member")).body);
    const invited = new Map([...created].map(([who, invitation]) => [who, invitation.id]));

    const notices = await invitationNotices(accepting);
    t.match(
      notices,
      [
        {
          kind: "workspace_invitation",
          workspace_id: workspace.id,
          project_id: null,
          invitation_id: invited.get(accepting),
          read_at: null,
          data: { invitation_id: invited.get(accepting), workspace_id: workspace.id, workspace_name: "Acme", inviter_id: owner.userId, role: "member" },
        },
      ],
      "the invitee's list shows the invitation: its id, the workspace and its name, the inviter",
    );
    t.equal(notices.length, 1, "one notification per invitation");
    t.equal(await unread(accepting), 1, "it counts as unread");
    const noticeId = notices[0]!.id;
    for (const [who, caller] of [["the inviting owner", owner], ["a stranger", stranger], ["another invitee", declining]] as const) {
      t.notOk((await invitationNotices(caller)).some((n) => n.id === noticeId), `${who} does not see it`);
      t.equal((await caller.call("POST", `/v1/notifications/${noticeId}/read`)).status, 404, `${who} cannot mark it read`);
    }
    t.equal(await unread(stranger), 0, "nor counts it");
    const read = await accepting.call("POST", `/v1/notifications/${noticeId}/read`);
    t.match(read, { status: 200, body: { id: noticeId, kind: "workspace_invitation" } }, "the invitee marks it read, as a mention");
    t.type(read.body.read_at, "string");
    t.equal(await unread(accepting), 0, "read, it no longer counts");

    // Accepted, declined, cancelled, expired: gone from the list and the count.
    t.equal((await accepting.call("POST", `/v1/invitations/${invited.get(accepting)}/accept`)).status, 200);
    t.equal((await declining.call("POST", `/v1/invitations/${invited.get(declining)}/decline`)).status, 200);
    t.equal((await owner.call("DELETE", `/v1/workspaces/${workspace.id}/invitations/${invited.get(cancelledOne)}`)).status, 204);
    const f = featuresFor(db);
    await sql`UPDATE pm_workspace_invitations SET expires_at = ${f.timeToDb(new Date(Date.parse(created.get(expiring)!.created_at) + 1))} WHERE id = ${invited.get(expiring)}`.execute(db.db);
    for (const [how, who] of [["accepted", accepting], ["declined", declining], ["cancelled", cancelledOne], ["expired", expiring]] as const) {
      t.same(await invitationNotices(who), [], `${how}: the notification is gone from the list`);
      t.equal(await unread(who), 0, `${how}: and from the unread count`);
    }
    const declinedNotice = (await db.db.selectFrom("pm_notifications").select("id").where("invitation_id", "=", invited.get(declining)!).executeTakeFirstOrThrow()).id;
    t.equal((await declining.call("POST", `/v1/notifications/${declinedNotice}/read`)).status, 404, "a decided invitation's notification is not marked read either");
  });

  await t.test("adding a non-member directly answers 409 invitation_required; a member's role still changes", async (t) => {
    const member = await client();
    const direct = await owner.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: member.userId, role: "owner" });
    t.match(direct, { status: 409, body: { code: "invitation_required", invitations: `/v1/workspaces/${workspace.id}/invitations` } }, "no member without consent");
    t.match(direct.headers.get("content-type"), /application\/problem\+json/);
    t.equal((await member.call("GET", `/v1/workspaces/${workspace.id}`)).status, 404, "nobody was added");
    await inviteAndAccept(owner, workspace.id, member, "member");
    const changed = await owner.call("POST", `/v1/workspaces/${workspace.id}/members`, { user_id: member.userId, role: "guest", reason: "contract ended" });
    t.match(changed, { status: 200, body: { role: "guest" } }, "an existing member's role changes as before");
  });
});

t.test("accepting an invitation races cancelling, declining and a second accept: one winner [postgres]", async (t) => {
  const { client } = await startProjectsServer(t, await testConfig("postgres", t));
  const owner = await client();
  const workspace = (await owner.call("POST", "/v1/workspaces", { name: "Race" })).body;
  const rounds = 3;
  for (let round = 0; round < rounds; round++) {
    for (const rival of ["cancel", "decline", "accept"] as const) {
      const invitee = await client();
      const invitation = (await invite(owner, workspace.id, invitee)).body;
      const rivalCall =
        rival === "cancel"
          ? owner.call("DELETE", `/v1/workspaces/${workspace.id}/invitations/${invitation.id}`)
          : invitee.call("POST", `/v1/invitations/${invitation.id}/${rival}`);
      const [accepted, other] = await Promise.all([invitee.call("POST", `/v1/invitations/${invitation.id}/accept`), rivalCall]);
      const won = (answer: { status: number }) => answer.status === 200 || answer.status === 204;
      t.equal([won(accepted), won(other)].filter(Boolean).length, 1, `round ${round}, accept vs ${rival}: one winner`);
      t.equal((won(accepted) ? other : accepted).status, 409, `round ${round}, accept vs ${rival}: the other answers 409`);
      const joined = won(accepted) || (rival === "accept" && won(other));
      const membership = await invitee.call("GET", `/v1/workspaces/${workspace.id}`);
      t.equal(membership.status, joined ? 200 : 404, `round ${round}, accept vs ${rival}: a member exactly when the accept won`);
    }
  }
});
