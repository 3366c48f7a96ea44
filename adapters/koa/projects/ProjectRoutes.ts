/** Routes of projects and project memberships, including the spec's revocation endpoint. */
import { Effect } from "effect";
import { addProjectMember, createProject, getProject, revokeProjectMembership } from "../../../core/projects/Projects.js";
import { ProjectMemberView } from "../../../core/projects/model/ProjectMember.js";
import { ProjectView } from "../../../core/projects/model/Project.js";
import { defineRoute } from "../Route.js";
import { NameBody, ProjectMemberBody, ProjectMemberParams, ProjectParams, ReasonQuery, WorkspaceParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** POST /v1/workspaces/:id/projects — owners and members; the creator becomes admin. */
export const createProjectRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces/:id/projects",
  operationId: "createProject",
  summary: "Create a project (the caller becomes its admin)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: WorkspaceParams,
  body: NameBody,
  responses: { 201: ProjectView },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    createProject(principal, params.id, body).pipe(Effect.map(({ project, role }) => ({ status: 201, body: { ...project, role } }))),
});

/** GET /v1/projects/:id — anyone who can see the project. */
export const getProjectRoute = defineRoute({
  method: "GET",
  path: "/v1/projects/:id",
  operationId: "getProject",
  summary: "Read a project the caller can see",
  tags,
  auth: "required",
  params: ProjectParams,
  responses: { 200: ProjectView },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getProject(principal, params.id).pipe(Effect.map((access) => ({ status: 200, body: { ...access.project, role: access.role } }))),
});

/** POST /v1/projects/:id/members — project admin shares the project. */
export const addProjectMemberRoute = defineRoute({
  method: "POST",
  path: "/v1/projects/:id/members",
  operationId: "addProjectMember",
  summary: "Add a project member or change its role (project admin)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: ProjectParams,
  body: ProjectMemberBody,
  responses: { 201: ProjectMemberView, 200: ProjectMemberView },
  problems: [403, 404, 422, 429],
  budget: { name: "invitations" },
  handler: ({ principal, params, body }) =>
    addProjectMember(principal, params.id, { userId: body.user_id, role: body.role, reason: body.reason }).pipe(
      Effect.map(({ member, created }) => ({ status: created ? 201 : 200, body: member })),
    ),
});

/** DELETE /v1/projects/:id/members/:userId — project admin revokes (idempotent, 204). */
export const revokeProjectMemberRoute = defineRoute({
  method: "DELETE",
  path: "/v1/projects/:id/members/:userId",
  operationId: "revokeProjectMembership",
  summary: "Revoke a project membership (project admin; idempotent)",
  description:
    "Removes the membership, records actor and reason, produces MembershipRevoked and drops the user's live subscriptions to the project. Repeating it answers 204 and changes nothing.",
  tags,
  auth: "required",
  params: ProjectMemberParams,
  query: ReasonQuery,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params, query }) =>
    revokeProjectMembership(principal, params.id, { userId: params.userId, reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** Project routes. */
export const projectRoutes = [createProjectRoute, getProjectRoute, addProjectMemberRoute, revokeProjectMemberRoute];
