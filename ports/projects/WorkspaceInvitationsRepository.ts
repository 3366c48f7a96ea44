/**
 * Storage of workspace invitations. Every call joins the open transaction. A user has at most
 * one pending invitation per workspace (the store refuses a second), and a decided invitation
 * never changes again.
 */
import { Context, Effect } from "effect";
import type { InvitationStatus, InvitationToUser, WorkspaceInvitation } from "../../core/projects/model/WorkspaceInvitation.js";

/** A move of a pending invitation to a final status. */
export interface InvitationDecision {
  readonly id: string;
  readonly status: Exclude<InvitationStatus, "pending">;
  readonly at: Date;
  readonly by: string;
  readonly reason: string;
  /** Moves it only while it is unexpired at `at` (an accept); omitted, expiry does not matter (a cancel). */
  readonly unexpired?: boolean;
}

/** The workspace invitation repository. */
export interface WorkspaceInvitationsRepository {
  /** Stores a new pending invitation; "pending_exists" when the user already has one to the workspace. */
  readonly insert: (invitation: WorkspaceInvitation) => Effect.Effect<"inserted" | "pending_exists">;
  readonly find: (id: string) => Effect.Effect<WorkspaceInvitation | null>;
  /** The user's pending invitation to the workspace (expired or not), or null. */
  readonly findPending: (workspaceId: string, userId: string) => Effect.Effect<WorkspaceInvitation | null>;
  /**
   * Moves the invitation from pending to `decision.status` in one conditional update, recording
   * when, by whom and why; true when this call moved it, false when it was not pending (or, with
   * `unexpired`, had expired): of two racing decisions exactly one moves it.
   */
  readonly decide: (decision: InvitationDecision) => Effect.Effect<boolean>;
  /**
   * Cancels every pending invitation `invitedBy` sent to the workspace (its inviter lost
   * ownership), recording when, by whom and why, in one statement; answers how many it cancelled.
   */
  readonly cancelPendingFrom: (req: {
    readonly workspaceId: string;
    readonly invitedBy: string;
    readonly at: Date;
    readonly by: string;
    readonly reason: string;
  }) => Effect.Effect<number>;
  /**
   * The user's pending invitations unexpired at `at`, each with its workspace's name, newest first
   * (by id), at most `limit`; only those older than `beforeId` when given.
   */
  readonly listPendingForUser: (userId: string, at: Date, limit: number, beforeId?: string) => Effect.Effect<ReadonlyArray<InvitationToUser>>;
  /** The workspace's invitations in every status, newest first (by id), at most `limit`; only those older than `beforeId` when given. */
  readonly listForWorkspace: (workspaceId: string, limit: number, beforeId?: string) => Effect.Effect<ReadonlyArray<WorkspaceInvitation>>;
}
export const WorkspaceInvitationsRepository = Context.GenericTag<WorkspaceInvitationsRepository>("domainkit/projects/WorkspaceInvitationsRepository");
