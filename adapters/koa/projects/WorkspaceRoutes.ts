/** Routes of workspaces and workspace members (owners manage members). */
import { Effect } from "effect";
import { WorkspaceMemberView } from "../../../core/projects/model/WorkspaceMember.js";
import { WorkspaceView } from "../../../core/projects/model/Workspace.js";
import { addWorkspaceMember, createWorkspace, getWorkspace, removeWorkspaceMember } from "../../../core/projects/Workspaces.js";
import { defineRoute } from "../Route.js";
import { NameBody, ReasonQuery, WorkspaceMemberBody, WorkspaceMemberParams, WorkspaceParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** POST /v1/workspaces — the caller becomes owner. */
export const createWorkspaceRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces",
  operationId: "createWorkspace",
  summary: "Create a workspace (the caller becomes its owner)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  body: NameBody,
  responses: { 201: WorkspaceView },
  problems: [403, 422],
  handler: ({ principal, body }) =>
    createWorkspace(principal, body).pipe(Effect.map(({ workspace, role }) => ({ status: 201, body: { ...workspace, role } }))),
});

/** GET /v1/workspaces/:id — any member. */
export const getWorkspaceRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id",
  operationId: "getWorkspace",
  summary: "Read a workspace the caller belongs to",
  tags,
  auth: "required",
  params: WorkspaceParams,
  responses: { 200: WorkspaceView },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getWorkspace(principal, params.id).pipe(Effect.map(({ workspace, role }) => ({ status: 200, body: { ...workspace, role } }))),
});

/** POST /v1/workspaces/:id/members — owner changes a member's role (adds a non-member only where the host allows direct adds). */
export const addWorkspaceMemberRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces/:id/members",
  operationId: "addWorkspaceMember",
  summary: "Change a workspace member's role (owner); a non-member joins by invitation",
  description:
    "A user who is not a member answers 409 invitation_required (its `invitations` member names POST /v1/workspaces/:id/invitations): users join by accepting an invitation. A host whose own user directory decides membership composes the module with `directMemberAdds: true`, and then this route also adds non-members directly (201). The last owner cannot be demoted (409 last_owner). Spends the invitations action budget (429).",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: WorkspaceParams,
  body: WorkspaceMemberBody,
  responses: { 201: WorkspaceMemberView, 200: WorkspaceMemberView },
  problems: [403, 404, 409, 422, 429],
  budget: { name: "invitations" },
  handler: ({ principal, params, body }) =>
    addWorkspaceMember(principal, params.id, { userId: body.user_id, role: body.role, reason: body.reason }).pipe(
      Effect.map(({ member, created }) => ({ status: created ? 201 : 200, body: member })),
    ),
});

/** DELETE /v1/workspaces/:id/members/:userId — owner removes a member (idempotent). */
export const removeWorkspaceMemberRoute = defineRoute({
  method: "DELETE",
  path: "/v1/workspaces/:id/members/:userId",
  operationId: "removeWorkspaceMember",
  summary: "Remove a workspace member and its project memberships (an owner, or the member themselves: leaving; idempotent)",
  description:
    "An owner removes anyone; any member may remove themselves (leave), guests included. The last owner cannot leave or be removed (409 last_owner). Another member's removal by a non-owner: 403.",
  tags,
  auth: "required",
  params: WorkspaceMemberParams,
  query: ReasonQuery,
  responses: { 204: null },
  problems: [403, 404, 409],
  handler: ({ principal, params, query }) =>
    removeWorkspaceMember(principal, params.id, { userId: params.userId, reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** Workspace routes. */
export const workspaceRoutes = [createWorkspaceRoute, getWorkspaceRoute, addWorkspaceMemberRoute, removeWorkspaceMemberRoute];
