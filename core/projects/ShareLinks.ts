/**
 * Read-only project share links (spec rule 7). Project admins and contributors create links
 * (default 7 days, at most 30); the token is returned once and stored only hashed. Admins list
 * a project's links (never a token); an admin or the link's creator revokes one (idempotent).
 * Anyone holding a live token reads the project and its live tasks; an unknown, expired or
 * revoked token answers NotFound. A removed member's links are revoked in the removal's
 * transaction (`revokeShareLinksOfMember`), and a demoted one's links to projects it may no
 * longer share in the role change's (`revokeShareLinksBeyondShareRight`).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed, type InvalidCursor } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { ShareLinksRepository } from "../../ports/projects/ShareLinksRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { Transactions } from "../../ports/Transactions.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireRight, requireUser } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { Project } from "./model/Project.js";
import type { Task } from "./model/Task.js";
import { allows, ProjectRole, type ProjectRight } from "./Roles.js";
import type { ShareLink } from "./model/ShareLink.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { RankCursor } from "./TaskQueries.js";
import { withSpan } from "../kernel/Span.js";
import { ProjectId, ShareLinkId, WorkspaceId } from "./model/Ids.js";

/** Lifetime of a link when the caller names none. */
export const defaultShareLinkSeconds = 7 * 24 * 3600;
/** The longest lifetime a link may have. */
export const maxShareLinkSeconds = 30 * 24 * 3600;
/** The reason recorded on links revoked because their creator lost the membership. */
export const membershipRevokedReason = "membership_revoked";
/** The reason recorded on links revoked because a role change took away their creator's share right. */
export const roleChangedReason = "role_changed";
/** The project right that creating (and keeping) a link needs: admins and contributors hold it. */
export const shareRight: ProjectRight = "edit_tasks";

/** The project roles that allow sharing. */
const sharingRoles: ReadonlyArray<ProjectRole> = ProjectRole.literals.filter((role) => allows(role, shareRight));

type ReadServices = WorkspacesRepository | ProjectsRepository;

const linkNotFound = () => new NotFound({ resource: "share_link", detail: "No such share link." });

/**
 * Creates a link to a project (admin or contributor); answers the link and its token, shown once.
 * The check and the insert are one transaction under the caller's workspace membership row lock,
 * the lock every change of that user's access takes first: a removal racing the creation either
 * waits and then revokes the new link, or commits first and the creation answers NotFound.
 */
export const createShareLink = (
  principal: Principal,
  projectId: ProjectId,
  input: { readonly expiresInSeconds?: number | undefined },
): Effect.Effect<
  { link: ShareLink; token: string },
  Forbidden | NotFound | ValidationFailed,
  ReadServices | ShareLinksRepository | Ids | Transactions
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    return yield* (yield* Transactions).run(insertShareLink(userId, projectId, input));
  }).pipe(withSpan("Projects.createShareLink"));

const insertShareLink = (
  userId: string,
  projectId: ProjectId,
  input: { readonly expiresInSeconds?: number | undefined },
): Effect.Effect<{ link: ShareLink; token: string }, Forbidden | NotFound | ValidationFailed, ReadServices | ShareLinksRepository | Ids> =>
  Effect.gen(function* () {
    const seen = yield* projectAccess(userId, projectId);
    yield* (yield* WorkspacesRepository).findMember(seen.project.workspaceId, userId, { forUpdate: true });
    // Read again under the lock: a removal that committed meanwhile is seen here.
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, shareRight);
    const seconds = input.expiresInSeconds ?? defaultShareLinkSeconds;
    if (!Number.isInteger(seconds) || seconds < 60 || seconds > maxShareLinkSeconds) {
      return yield* Effect.fail(
        new ValidationFailed({ errors: [{ path: "expires_in_seconds", message: `must be an integer from 60 to ${maxShareLinkSeconds}` }] }),
      );
    }
    const at = yield* now;
    const link: ShareLink = {
      id: ShareLinkId.make(yield* (yield* Ids).next),
      workspaceId: access.project.workspaceId,
      projectId,
      createdBy: userId,
      createdAt: at,
      expiresAt: new Date(at.getTime() + seconds * 1000),
      revokedAt: null,
      revokedReason: null,
      revokedBy: null,
    };
    const token = yield* (yield* ShareLinksRepository).create(link);
    return { link, token };
  });

/**
 * One page of the project's links, newest first by id (project admin). Links are never deleted,
 * so this is a keyset page like every list: every link stays reachable, and revocable.
 */
export const listShareLinks = (
  principal: Principal,
  projectId: ProjectId,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<ShareLink>, Forbidden | NotFound | InvalidCursor, ReadServices | ShareLinksRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "manage_members");
    const before = page.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, page.cursor);
    const rows = yield* (yield* ShareLinksRepository).listForProject(projectId, page.limit + 1, before?.[0]);
    return pageFrom(rows, page.limit, (link) => [link.id]);
  }).pipe(withSpan("Projects.listShareLinks"));

/**
 * Revokes a link (a project admin, or its creator while still seeing the project), recording the
 * caller and its reason (default `revoked`). Idempotent: revoking a revoked link succeeds and
 * changes nothing (the first revocation's actor and reason stand). A link of a project the
 * caller cannot see answers NotFound like an unknown id.
 */
export const revokeShareLink = (
  principal: Principal,
  linkId: ShareLinkId,
  input: { readonly reason?: string | undefined } = {},
): Effect.Effect<{ revoked: boolean }, Forbidden | NotFound, ReadServices | ShareLinksRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const links = yield* ShareLinksRepository;
    const link = yield* links.find(linkId);
    if (link === null) return yield* Effect.fail(linkNotFound());
    const access = yield* projectAccess(userId, link.projectId, "share_link");
    if (!allows(access.role, "manage_members") && link.createdBy !== userId) {
      return yield* Effect.fail(new Forbidden({ detail: "Only a project admin or the link's creator revokes it." }));
    }
    return { revoked: yield* links.revoke(linkId, yield* now, input.reason ?? "revoked", userId) };
  }).pipe(withSpan("Projects.revokeShareLink"));

/** What a share token grants: the project and one page of its live tasks. */
export interface SharedProject {
  readonly project: Project;
  readonly tasks: Page<Task>;
}

/** Resolves a token to the read-only view; a missing, unknown, expired or revoked token is NotFound. */
export const accessSharedProject = (
  token: string | undefined,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<SharedProject, NotFound | InvalidCursor, ProjectsRepository | TasksRepository | ShareLinksRepository> =>
  Effect.gen(function* () {
    // Bounded before hashing: real tokens are 43 characters.
    if (token === undefined || token.length === 0 || token.length > 128) return yield* Effect.fail(linkNotFound());
    const link = yield* (yield* ShareLinksRepository).findByToken(token);
    const at = yield* now;
    if (link === null || link.revokedAt !== null || link.expiresAt.getTime() <= at.getTime()) return yield* Effect.fail(linkNotFound());
    const project = yield* (yield* ProjectsRepository).findProject(link.projectId);
    if (project === null) return yield* Effect.fail(linkNotFound());
    const after = page.cursor === undefined ? undefined : yield* decodeCursor(RankCursor, page.cursor);
    const rows = yield* (yield* TasksRepository).listTasks({
      projectId: project.id,
      after: after === undefined ? undefined : { rank: after[0], id: after[1] },
      limit: page.limit + 1,
    });
    return { project, tasks: pageFrom(rows, page.limit, (task) => [task.rank, task.id]) };
  }).pipe(withSpan("Projects.accessSharedProject"));

/**
 * Revokes every live link `userId` created in the affected projects (all of the workspace when
 * `projectIds` is omitted); call inside the membership removal's transaction. Answers how many.
 */
export const revokeShareLinksOfMember = (req: {
  readonly workspaceId: WorkspaceId;
  readonly projectIds?: ReadonlyArray<string> | undefined;
  readonly userId: string;
  /** The actor of the membership change. */
  readonly actorId: string;
  readonly reason?: string | undefined;
}): Effect.Effect<number, never, ShareLinksRepository> =>
  Effect.gen(function* () {
    if (req.projectIds !== undefined && req.projectIds.length === 0) return 0;
    const { reason = membershipRevokedReason, actorId, ...scope } = req;
    return yield* (yield* ShareLinksRepository).revokeCreatedBy({ ...scope, at: yield* now, reason, revokedBy: actorId });
  });

/**
 * Revokes every live link `userId` created in the workspace's projects where it no longer holds
 * the share right (a project it no longer sees, or a role without the right), after a role
 * change; call inside that change's transaction, once the new roles are stored. A workspace
 * owner shares everywhere and keeps its links. Answers how many.
 */
export const revokeShareLinksBeyondShareRight = (req: {
  readonly workspaceId: WorkspaceId;
  readonly userId: string;
  /** The actor of the role change. */
  readonly actorId: string;
}): Effect.Effect<number, never, ShareLinksRepository | WorkspacesRepository> =>
  Effect.gen(function* () {
    const membership = yield* (yield* WorkspacesRepository).findMember(req.workspaceId, req.userId);
    if (membership?.role === "owner") return 0;
    // Kept where a project membership still allows sharing, checked inside the one UPDATE.
    return yield* (yield* ShareLinksRepository).revokeCreatedBy({
      workspaceId: req.workspaceId,
      userId: req.userId,
      exceptProjectRoles: membership === null ? [] : sharingRoles,
      at: yield* now,
      reason: roleChangedReason,
      revokedBy: req.actorId,
    });
  });
