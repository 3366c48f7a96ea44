/**
 * Routes of workspace invitations (consent before membership): owners invite, list and cancel;
 * only the invitee lists its own, accepts or declines (anyone else: 404).
 */
import { Effect } from "effect";
import { PageOf } from "../../../core/kernel/Page.js";
import { AcceptedInvitationView, InvitationToUserView, WorkspaceInvitationView } from "../../../core/projects/model/WorkspaceInvitation.js";
import {
  acceptInvitation,
  cancelInvitation,
  declineInvitation,
  inviteToWorkspace,
  listMyInvitations,
  listWorkspaceInvitations,
} from "../../../core/projects/Invitations.js";
import { defineRoute } from "../Route.js";
import { InvitationBody, InvitationParams, PageQuery, ReasonQuery, WorkspaceInvitationParams, WorkspaceParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** POST /v1/workspaces/:id/invitations — an owner invites a user (spends the invitations budget). */
export const inviteToWorkspaceRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces/:id/invitations",
  operationId: "inviteToWorkspace",
  summary: "Invite a user to a workspace with a role (owner); the user becomes a member only by accepting",
  description:
    "The invitation is pending for 14 days. A member: 409 already_member; a user with a pending invitation to the workspace: 409 invitation_pending. Spends the invitations action budget (429).",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: WorkspaceParams,
  body: InvitationBody,
  responses: { 201: WorkspaceInvitationView },
  problems: [403, 404, 409, 422, 429],
  budget: { name: "invitations" },
  handler: ({ principal, params, body }) =>
    inviteToWorkspace(principal, params.id, { userId: body.user_id, role: body.role, reason: body.reason }).pipe(
      Effect.map((invitation) => ({ status: 201, body: invitation })),
    ),
});

/** GET /v1/workspaces/:id/invitations — owners. */
export const listWorkspaceInvitationsRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id/invitations",
  operationId: "listWorkspaceInvitations",
  summary: "List a workspace's invitations in every status (owner), newest first, in keyset pages",
  tags,
  auth: "required",
  pagination: true,
  params: WorkspaceParams,
  query: PageQuery,
  responses: { 200: PageOf(WorkspaceInvitationView) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    listWorkspaceInvitations(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(Effect.map((body) => ({ status: 200, body }))),
});

/** DELETE /v1/workspaces/:id/invitations/:invitationId — an owner cancels (idempotent). */
export const cancelInvitationRoute = defineRoute({
  method: "DELETE",
  path: "/v1/workspaces/:id/invitations/:invitationId",
  operationId: "cancelInvitation",
  summary: "Cancel a pending invitation (owner; idempotent)",
  description: "A cancelled or expired invitation answers 204 again; one already accepted or declined: 409 invitation_not_pending.",
  tags,
  auth: "required",
  params: WorkspaceInvitationParams,
  query: ReasonQuery,
  responses: { 204: null },
  problems: [403, 404, 409],
  handler: ({ principal, params, query }) => cancelInvitation(principal, params.id, params.invitationId, { reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** GET /v1/invitations — the caller's pending invitations. */
export const listMyInvitationsRoute = defineRoute({
  method: "GET",
  path: "/v1/invitations",
  operationId: "listMyInvitations",
  summary: "List the caller's pending, unexpired workspace invitations, newest first, in keyset pages",
  description: "Each names the workspace it invites to (workspace_name), which the invitee cannot read otherwise before accepting.",
  tags,
  auth: "required",
  pagination: true,
  query: PageQuery,
  responses: { 200: PageOf(InvitationToUserView) },
  problems: [400, 403],
  handler: ({ principal, page }) => listMyInvitations(principal, { cursor: page.cursor, limit: page.limit }).pipe(Effect.map((body) => ({ status: 200, body }))),
});

/** POST /v1/invitations/:id/accept — the invitee joins the workspace with the invited role. */
export const acceptInvitationRoute = defineRoute({
  method: "POST",
  path: "/v1/invitations/:id/accept",
  operationId: "acceptInvitation",
  summary: "Accept an invitation (the invitee only): become a member with the invited role",
  description:
    "Anyone but the invitee: 404. Accepted, declined or cancelled already: 409 invitation_not_pending; expired: 410 invitation_expired; the inviting owner no longer an owner: 409 invitation_withdrawn; a member already: 409 already_member.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: InvitationParams,
  responses: { 200: AcceptedInvitationView },
  problems: [403, 404, 409, 410],
  handler: ({ principal, params }) => acceptInvitation(principal, params.id).pipe(Effect.map((body) => ({ status: 200, body }))),
});

/** POST /v1/invitations/:id/decline — the invitee declines (idempotent). */
export const declineInvitationRoute = defineRoute({
  method: "POST",
  path: "/v1/invitations/:id/decline",
  operationId: "declineInvitation",
  summary: "Decline an invitation (the invitee only; idempotent)",
  description: "Anyone but the invitee: 404. Accepted or cancelled already: 409 invitation_not_pending; expired: 410 invitation_expired.",
  tags,
  auth: "required",
  oneTransaction: true,
  params: InvitationParams,
  query: ReasonQuery,
  responses: { 200: WorkspaceInvitationView },
  problems: [403, 404, 409, 410],
  handler: ({ principal, params, query }) => declineInvitation(principal, params.id, { reason: query.reason }).pipe(Effect.map((body) => ({ status: 200, body }))),
});

/** Invitation routes. */
export const invitationRoutes = [
  inviteToWorkspaceRoute,
  listWorkspaceInvitationsRoute,
  cancelInvitationRoute,
  listMyInvitationsRoute,
  acceptInvitationRoute,
  declineInvitationRoute,
];
