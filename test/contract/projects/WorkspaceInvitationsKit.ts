/**
 * Contract kit for the WorkspaceInvitationsRepository: an invitation reads back as written; a user
 * has one pending invitation per workspace (a second answers "pending_exists", another workspace's
 * or a decided one's does not block); a decision moves only a pending invitation, once, and with
 * `unexpired` only one still running; the invitee's list holds its pending, unexpired invitations,
 * the workspace's list all of its own, both newest first in keyset pages.
 */
import { Effect } from "effect";
import type { WorkspaceRole } from "../../../core/projects/model/Roles.js";
import type { WorkspaceInvitation } from "../../../core/projects/model/WorkspaceInvitation.js";
import { WorkspaceId, WorkspaceInvitationId } from "../../../core/projects/model/Ids.js";
import { WorkspaceInvitationsRepository } from "../../../ports/projects/WorkspaceInvitationsRepository.js";
import { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { uid, workspaceRecord } from "./fixtures.js";

/** The ports this kit needs. */
export type WorkspaceInvitationsKitPorts = WorkspaceInvitationsRepository | WorkspacesRepository;

const day = 86_400_000;
const invitations = <A>(f: (r: WorkspaceInvitationsRepository) => Effect.Effect<A>) => Effect.flatMap(WorkspaceInvitationsRepository, f);
const invitation = (n: number, workspaceN: number, userId: string, role: WorkspaceRole = "member"): WorkspaceInvitation => ({
  id: WorkspaceInvitationId.make(uid("inv", n)),
  workspaceId: WorkspaceId.make(uid("ws", workspaceN)),
  userId,
  role,
  status: "pending",
  invitedBy: "owner-1",
  reason: "joins",
  createdAt: T0,
  expiresAt: at(14 * day),
  decidedAt: null,
  decidedBy: null,
  decidedReason: null,
});
const seed = (...ns: ReadonlyArray<number>) =>
  Effect.flatMap(WorkspacesRepository, (r) => Effect.forEach(ns, (n) => r.insertWorkspace(workspaceRecord(uid("ws", n))), { discard: true }));

/** The cases of the workspace invitations repository kit. */
export const workspaceInvitationsCases: ReadonlyArray<KitCase<WorkspaceInvitationsKitPorts>> = [
  {
    name: "invitations: one pending invitation per user and workspace; it reads back as written",
    run: async (t, run) => {
      await run(seed(1, 2));
      t.equal(await run(invitations((r) => r.insert(invitation(1, 1, "user-1", "owner")))), "inserted");
      t.same(await run(invitations((r) => r.find(uid("inv", 1)))), invitation(1, 1, "user-1", "owner"), "reads back as written");
      t.same(await run(invitations((r) => r.findPending(uid("ws", 1), "user-1"))), invitation(1, 1, "user-1", "owner"));
      t.equal(await run(invitations((r) => r.insert(invitation(2, 1, "user-1")))), "pending_exists", "a second pending invitation is refused");
      t.equal(await run(invitations((r) => r.find(uid("inv", 2)))), null, "and not stored");
      t.equal(await run(invitations((r) => r.insert(invitation(3, 2, "user-1")))), "inserted", "another workspace's does not block");
      t.equal(await run(invitations((r) => r.decide({ id: uid("inv", 1), status: "declined", at: at(1), by: "user-1", reason: "no" }))), true);
      t.equal(await run(invitations((r) => r.findPending(uid("ws", 1), "user-1"))), null, "a decided invitation is not pending");
      t.equal(await run(invitations((r) => r.insert(invitation(4, 1, "user-1")))), "inserted", "a decided one does not block a new one");
    },
  },
  {
    name: "invitations: a decision moves a pending invitation once, and an expired one only when expiry does not matter",
    run: async (t, run) => {
      await run(seed(1));
      await run(invitations((r) => Effect.forEach([invitation(1, 1, "user-1"), invitation(2, 1, "user-2")], (i) => r.insert(i))));
      const accept = { id: uid("inv", 1), status: "accepted" as const, at: at(day), by: "user-1", reason: "accepted", unexpired: true };
      t.equal(await run(invitations((r) => r.decide(accept))), true, "the first decision moves it");
      t.equal(await run(invitations((r) => r.decide({ ...accept, status: "cancelled", by: "owner-1", unexpired: false }))), false, "a second moves nothing");
      t.same(
        await run(invitations((r) => r.find(uid("inv", 1)))),
        { ...invitation(1, 1, "user-1"), status: "accepted", decidedAt: at(day), decidedBy: "user-1", decidedReason: "accepted" },
        "the first decision stands: when, by whom, why",
      );
      const late = { id: uid("inv", 2), status: "accepted" as const, at: at(14 * day), by: "user-2", reason: "accepted", unexpired: true };
      t.equal(await run(invitations((r) => r.decide(late))), false, "at its expiry an unexpired-only decision moves nothing");
      t.equal(await run(invitations((r) => r.decide({ ...late, status: "cancelled", by: "owner-1", unexpired: false }))), true, "a cancel still does");
    },
  },
  {
    name: "invitations: an inviter's pending invitations to a workspace are cancelled at once, nobody else's and no decided one",
    run: async (t, run) => {
      await run(seed(1, 2));
      const mine = (n: number, ws: number, user: string) => ({ ...invitation(n, ws, user), invitedBy: "owner-2" });
      await run(
        invitations((r) =>
          Effect.forEach([mine(1, 1, "user-1"), mine(2, 1, "user-2"), invitation(3, 1, "user-3"), mine(4, 2, "user-4"), mine(5, 1, "user-5")], (i) => r.insert(i)),
        ),
      );
      await run(invitations((r) => r.decide({ id: uid("inv", 5), status: "declined", at: at(1), by: "user-5", reason: "no" })));
      const cancel = { workspaceId: uid("ws", 1), invitedBy: "owner-2", at: at(2), by: "owner-1", reason: "the inviter is no longer an owner" };
      t.equal(await run(invitations((r) => r.cancelPendingFrom(cancel))), 2, "that inviter's pending ones in that workspace");
      const status = async (n: number) => {
        const found = await run(invitations((r) => r.find(uid("inv", n))));
        return [found?.status, found?.decidedBy, found?.decidedReason];
      };
      t.same(await status(1), ["cancelled", "owner-1", cancel.reason], "cancelled: by whom and why");
      t.same(await status(3), ["pending", null, null], "another inviter's stands");
      t.same(await status(4), ["pending", null, null], "another workspace's stands");
      t.same(await status(5), ["declined", "user-5", "no"], "a decided one keeps its decision");
      t.equal(await run(invitations((r) => r.cancelPendingFrom(cancel))), 0, "again: nothing");
    },
  },
  {
    name: "invitations: the invitee's list holds its pending, unexpired ones; the workspace's list all of its own; newest first, in pages",
    run: async (t, run) => {
      await run(seed(1, 2, 3));
      await run(
        invitations((r) =>
          Effect.forEach([invitation(1, 1, "user-1"), invitation(2, 2, "user-1"), invitation(3, 3, "user-1"), invitation(4, 1, "user-2")], (i) => r.insert(i)),
        ),
      );
      await run(invitations((r) => r.decide({ id: uid("inv", 2), status: "declined", at: at(1), by: "user-1", reason: "no" })));
      const ids = (rows: ReadonlyArray<WorkspaceInvitation>) => rows.map((i) => i.id);
      const mine = await run(invitations((r) => r.listPendingForUser("user-1", at(1), 10)));
      t.same(ids(mine), [uid("inv", 3), uid("inv", 1)], "pending only, newest first");
      t.same(
        mine.map((i) => i.workspaceName),
        [workspaceRecord(uid("ws", 3)).name, workspaceRecord(uid("ws", 1)).name],
        "each with the name of the workspace it invites to",
      );
      t.same(ids(await run(invitations((r) => r.listPendingForUser("user-1", at(1), 1, uid("inv", 3))))), [uid("inv", 1)], "the next page");
      t.same(await run(invitations((r) => r.listPendingForUser("user-1", at(14 * day), 10))), [], "expired ones are not listed");
      t.same(ids(await run(invitations((r) => r.listForWorkspace(uid("ws", 1), 10)))), [uid("inv", 4), uid("inv", 1)], "a workspace lists only its own");
      t.same(ids(await run(invitations((r) => r.listForWorkspace(uid("ws", 2), 10)))), [uid("inv", 2)], "in every status");
    },
  },
];

/** Runs the workspace invitations repository kit. */
export const workspaceInvitationsSuite = (options: SuiteOptions<WorkspaceInvitationsKitPorts>): Promise<unknown> =>
  runCases(options, workspaceInvitationsCases);
