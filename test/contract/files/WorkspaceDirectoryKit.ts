/**
 * Contract kit for WorkspaceDirectory, the membership port file storage asks on every check (a
 * host embedding files alone binds its own): a member's standing (`admin` or `member`) is
 * answered for their workspace only, anyone else is nobody (null), and a change of standing or a
 * removal is visible at the very next check (never cached), so a removed member loses access at
 * once; the members among a list of users are read in one question (a drive announcement's
 * readers). The kit seeds membership through `WorkspaceDirectorySeed`, which the adapter's author
 * implements over their own membership store.
 */
import { Context, Effect } from "effect";
import { WorkspaceDirectory, type WorkspaceStanding } from "../../../ports/files/WorkspaceDirectory.js";
import { runCases, type KitCase, type SuiteOptions } from "../Kit.js";

/** How the kit makes someone a member: `standing` in the workspace, or removed (null). */
export interface WorkspaceDirectorySeed {
  readonly set: (workspaceId: string, userId: string, standing: WorkspaceStanding | null) => Effect.Effect<void>;
}
export const WorkspaceDirectorySeed = Context.GenericTag<WorkspaceDirectorySeed>("domainkit/testkit/files/WorkspaceDirectorySeed");

/** The ports this kit needs: the directory under test and its seeding. */
export type WorkspaceDirectoryKitPorts = WorkspaceDirectory | WorkspaceDirectorySeed;

/** A UUID-shaped id of kind `kind` and number `n`. */
const id = (kind: number, n: number): string => `0000000${kind}-0000-4000-8000-${String(n).padStart(12, "0")}`;
const ws = (n: number) => id(3, n);
const user = (n: number) => id(4, n);

const seed = (workspaceId: string, userId: string, standing: WorkspaceStanding | null) => Effect.flatMap(WorkspaceDirectorySeed, (s) => s.set(workspaceId, userId, standing));
const standing = (workspaceId: string, userId: string) => Effect.flatMap(WorkspaceDirectory, (d) => d.standing(workspaceId, userId));

/** The cases of the WorkspaceDirectory kit. */
export const workspaceDirectoryCases: ReadonlyArray<KitCase<WorkspaceDirectoryKitPorts>> = [
  {
    name: "directory: a member's standing is answered in their workspace; anyone else, or another workspace, is nobody",
    run: async (t, run) => {
      await run(seed(ws(1), user(1), "admin"));
      await run(seed(ws(1), user(2), "member"));
      await run(seed(ws(2), user(3), "member"));
      t.equal(await run(standing(ws(1), user(1))), "admin");
      t.equal(await run(standing(ws(1), user(2))), "member");
      t.equal(await run(standing(ws(1), user(3))), null, "a member of another workspace");
      t.equal(await run(standing(ws(2), user(1))), null, "the admin of another workspace");
      t.equal(await run(standing(ws(9), user(1))), null, "no such workspace");
    },
  },
  {
    name: "directory: a change of standing or a removal is visible at the next check",
    run: async (t, run) => {
      await run(seed(ws(1), user(1), "admin"));
      await run(seed(ws(1), user(2), "admin"));
      t.equal(await run(standing(ws(1), user(2))), "admin");
      await run(seed(ws(1), user(2), "member"));
      t.equal(await run(standing(ws(1), user(2))), "member", "a demotion at once");
      await run(seed(ws(1), user(2), null));
      t.equal(await run(standing(ws(1), user(2))), null, "a removal at once");
      t.equal(await run(standing(ws(1), user(1))), "admin", "others unchanged");
    },
  },
  {
    name: "directory: the members among a list of users are the workspace's current members, once each, in the order asked",
    run: async (t, run) => {
      await run(seed(ws(1), user(1), "admin"));
      await run(seed(ws(1), user(2), "member"));
      await run(seed(ws(2), user(3), "member"));
      const among = (workspaceId: string, userIds: ReadonlyArray<string>) => run(Effect.flatMap(WorkspaceDirectory, (d) => d.membersAmong(workspaceId, userIds)));
      t.same(await among(ws(1), [user(3), user(2), user(1), user(2)]), [user(2), user(1)], "members only, once each, in the order asked");
      t.same(await among(ws(1), []), [], "nobody asked");
      await run(seed(ws(1), user(2), null));
      t.same(await among(ws(1), [user(1), user(2)]), [user(1)], "a removal at once");
    },
  },
];

/** Runs the WorkspaceDirectory kit. */
export const workspaceDirectorySuite = (options: SuiteOptions<WorkspaceDirectoryKitPorts>): Promise<unknown> => runCases(options, workspaceDirectoryCases);
