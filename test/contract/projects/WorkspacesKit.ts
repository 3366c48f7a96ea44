/**
 * Contract kit for the WorkspacesRepository: a workspace reads back as written; a membership is
 * unique per (workspace, user) — `upsertMember` creates it once and then changes its role;
 * removal answers whether there was one; owners are counted per workspace; role lookups are
 * scoped to the user and the role.
 */
import { Effect } from "effect";
import type { WorkspaceMember } from "../../../core/projects/model/WorkspaceMember.js";
import type { WorkspaceRole } from "../../../core/projects/model/Roles.js";
import { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { uid, workspaceRecord } from "./fixtures.js";
import { WorkspaceId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type WorkspacesKitPorts = WorkspacesRepository;

const workspaces = <A>(f: (r: WorkspacesRepository) => Effect.Effect<A>) => Effect.flatMap(WorkspacesRepository, f);
const member = (workspaceN: number, userId: string, role: WorkspaceRole, createdAt: Date = T0): WorkspaceMember => ({
  workspaceId: WorkspaceId.make(uid("ws", workspaceN)),
  userId,
  role,
  createdAt,
});
const seed = (...ns: ReadonlyArray<number>) =>
  workspaces((r) => Effect.forEach(ns, (n) => r.insertWorkspace(workspaceRecord(uid("ws", n))), { discard: true }));

/** The cases of the workspaces repository kit. */
export const workspacesCases: ReadonlyArray<KitCase<WorkspacesKitPorts>> = [
  {
    name: "workspaces: a workspace reads back as written; an unknown id finds nothing",
    run: async (t, run) => {
      await run(seed(1));
      t.same(await run(workspaces((r) => r.findWorkspace(uid("ws", 1)))), workspaceRecord(uid("ws", 1)));
      t.equal(await run(workspaces((r) => r.findWorkspace(uid("ws", 2)))), null);
    },
  },
  {
    name: "workspaces: upsertMember creates a membership once, then changes its role",
    run: async (t, run) => {
      await run(seed(1));
      t.equal(await run(workspaces((r) => r.upsertMember(member(1, "user-1", "member")))), "created");
      t.same(await run(workspaces((r) => r.findMember(uid("ws", 1), "user-1"))), member(1, "user-1", "member"));
      t.equal(await run(workspaces((r) => r.upsertMember(member(1, "user-1", "owner", at(5))))), "updated");
      t.equal((await run(workspaces((r) => r.findMember(uid("ws", 1), "user-1"))))?.role, "owner", "the role changed");
    },
  },
  {
    name: "workspaces: a membership is found only in its own workspace",
    run: async (t, run) => {
      await run(seed(1, 2));
      await run(workspaces((r) => r.upsertMember(member(1, "user-1", "owner"))));
      t.equal(await run(workspaces((r) => r.findMember(uid("ws", 2), "user-1"))), null, "another workspace's id finds nothing");
      t.equal(await run(workspaces((r) => r.findMember(uid("ws", 1), "user-2"))), null, "another user finds nothing");
      t.equal(await run(workspaces((r) => r.removeMember(uid("ws", 2), "user-1"))), false, "nothing to remove in another workspace");
      t.not(await run(workspaces((r) => r.findMember(uid("ws", 1), "user-1"))), null, "still a member");
    },
  },
  {
    name: "workspaces: removeMember answers whether there was a membership",
    run: async (t, run) => {
      await run(seed(1));
      await run(workspaces((r) => r.upsertMember(member(1, "user-1", "member"))));
      t.equal(await run(workspaces((r) => r.removeMember(uid("ws", 1), "user-1"))), true);
      t.equal(await run(workspaces((r) => r.findMember(uid("ws", 1), "user-1"))), null);
      t.equal(await run(workspaces((r) => r.removeMember(uid("ws", 1), "user-1"))), false, "a repeated removal");
    },
  },
  {
    name: "workspaces: owners are counted per workspace",
    run: async (t, run) => {
      await run(seed(1, 2));
      t.equal(await run(workspaces((r) => r.countOwners(uid("ws", 1)))), 0);
      await run(
        workspaces((r) =>
          Effect.forEach(
            [member(1, "user-1", "owner"), member(1, "user-2", "owner"), member(1, "user-3", "member"), member(2, "user-4", "owner")],
            (m) => r.upsertMember(m),
          ),
        ),
      );
      t.equal(await run(workspaces((r) => r.countOwners(uid("ws", 1)))), 2);
      await run(workspaces((r) => r.upsertMember(member(1, "user-2", "member"))));
      t.equal(await run(workspaces((r) => r.countOwners(uid("ws", 1)))), 1, "a demoted owner no longer counts");
    },
  },
  {
    name: "workspaces: workspaceIdsWithRole lists the user's workspaces holding exactly that role",
    run: async (t, run) => {
      await run(seed(1, 2, 3));
      await run(
        workspaces((r) =>
          Effect.forEach([member(1, "user-1", "owner"), member(2, "user-1", "member"), member(3, "user-1", "owner"), member(2, "user-2", "owner")], (m) =>
            r.upsertMember(m),
          ),
        ),
      );
      const owned = await run(workspaces((r) => r.workspaceIdsWithRole("user-1", "owner")));
      t.same([...owned].sort(), [uid("ws", 1), uid("ws", 3)]);
      t.same(await run(workspaces((r) => r.workspaceIdsWithRole("user-1", "guest"))), []);
    },
  },
];

/** Runs the workspaces repository kit. */
export const workspacesSuite = (options: SuiteOptions<WorkspacesKitPorts>): Promise<unknown> => runCases(options, workspacesCases);
