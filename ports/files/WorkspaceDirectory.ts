/**
 * Workspace membership as file storage sees it. The reference server binds it to the project
 * module's workspaces; a host that embeds file storage alone binds its own directory. Access
 * checks ask it on every request, so a removed member loses access at once.
 */
import { Context, type Effect } from "effect";

/** A caller's standing in a workspace: admins manage membership, quota, policy and audit (not content). */
export type WorkspaceStanding = "admin" | "member";

export interface WorkspaceDirectory {
  /** The user's current standing in the workspace, or null when not a member (or no such workspace). */
  readonly standing: (workspaceId: string, userId: string) => Effect.Effect<WorkspaceStanding | null>;
  /**
   * `standing`, read inside a command's transaction under the drive lock and held until it ends:
   * a removal or role change of the member waits for the commit, and one committed first is seen.
   * Optional: without it the check under the lock reads `standing`, and a removal committing
   * between that read and the commit goes unseen by the command.
   */
  readonly standingHeld?: (workspaceId: string, userId: string) => Effect.Effect<WorkspaceStanding | null>;
  /**
   * The users of `userIds` who are current members of the workspace (any standing), in the order
   * given, each once; asked in one read however many users (a drive announcement's readers).
   */
  readonly membersAmong: (workspaceId: string, userIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>;
}
export const WorkspaceDirectory = Context.GenericTag<WorkspaceDirectory>("domainkit/files/WorkspaceDirectory");
