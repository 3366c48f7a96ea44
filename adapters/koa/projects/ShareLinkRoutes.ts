/**
 * Routes of read-only project share links. The token is answered once, at creation, and is
 * presented only in the `X-Share-Token` header, never in the URL, so it stays out of access
 * logs, proxies and browser history; an unknown, expired or revoked token answers 404.
 */
import { Effect, Schema, Struct } from "effect";
import { accessSharedProject, createShareLink, listShareLinks, revokeShareLink } from "../../../core/projects/ShareLinks.js";
import { wireShape } from "../../../core/kernel/Wire.js";
import { Project } from "../../../core/projects/model/Project.js";
import { CreatedShareLinkView, ShareLinkView } from "../../../core/projects/model/ShareLink.js";
import { Task } from "../../../core/projects/model/Task.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { PageQuery, ProjectParams, ReasonQuery, ShareLinkParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** The header carrying a share token. */
export const shareTokenHeader = "X-Share-Token";

/** Body of POST /v1/projects/:id/share-links. */
export const ShareLinkBody = Schema.Struct({
  expires_in_seconds: Schema.optional(Schema.Number).annotations({ description: "Lifetime in seconds: 60 to 2592000 (30 days); default 7 days." }),
});


/**
 * A task as a token holder reads it: the work, not the people or the tenant (no creator,
 * assignee or workspace id: the holder is anonymous, and the link shares no members).
 */
export const SharedTaskView = wireShape(Schema.Struct(Struct.pick(Task.fields, "id", "projectId", "title", "status", "rank", "version", "createdAt", "updatedAt")));

/** What a token holder reads: the project (no members, no roles) and one page of live tasks. */
export const SharedProjectView = Schema.Struct({
  project: wireShape(Schema.Struct(Struct.pick(Project.fields, "id", "name", "createdAt"))),
  tasks: PageOf(SharedTaskView),
});

// Answers carrying or granted by a token must not be cached by anyone.
const noStore = { "Cache-Control": "no-store" };

/** POST /v1/projects/:id/share-links — project admins and contributors. */
export const createShareLinkRoute = defineRoute({
  method: "POST",
  path: "/v1/projects/:id/share-links",
  operationId: "createShareLink",
  summary: "Create a read-only share link (the token is shown once)",
  description: "Project admins and contributors. The token is answered only here and stored hashed; present it in the X-Share-Token header.",
  tags,
  auth: "required",
  // Not replayable: a stored replay would keep the token in clear in the idempotency record.
  idempotency: "none",
  params: ProjectParams,
  body: ShareLinkBody,
  responses: { 201: CreatedShareLinkView },
  problems: [403, 404, 422, 429],
  budget: { name: "shares" },
  handler: ({ principal, params, body }) =>
    createShareLink(principal, params.id, { expiresInSeconds: body.expires_in_seconds }).pipe(
      Effect.map(({ link, token }) => ({ status: 201, body: { id: link.id, token, expiresAt: link.expiresAt }, headers: noStore })),
    ),
});

/** GET /v1/projects/:id/share-links — project admins. */
export const listShareLinksRoute = defineRoute({
  method: "GET",
  path: "/v1/projects/:id/share-links",
  operationId: "listShareLinks",
  summary: "List a project's share links (project admin; never the tokens), newest first, in keyset pages",
  tags,
  auth: "required",
  pagination: true,
  params: ProjectParams,
  query: PageQuery,
  responses: { 200: PageOf(ShareLinkView) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    listShareLinks(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(Effect.map((links) => ({ status: 200, body: links }))),
});

/** DELETE /v1/share-links/:id — a project admin or the link's creator (idempotent, 204). */
export const revokeShareLinkRoute = defineRoute({
  method: "DELETE",
  path: "/v1/share-links/:id",
  operationId: "revokeShareLink",
  summary: "Revoke a share link (project admin or its creator; idempotent)",
  tags,
  auth: "required",
  params: ShareLinkParams,
  query: ReasonQuery,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params, query }) => revokeShareLink(principal, params.id, { reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** GET /v1/share-links/access — public; the token in X-Share-Token. */
export const accessShareLinkRoute = defineRoute({
  method: "GET",
  path: "/v1/share-links/access",
  operationId: "accessShareLink",
  summary: "Read a shared project and its live tasks (X-Share-Token header)",
  description: "Authenticated by the share token in the X-Share-Token header; a missing, unknown, expired or revoked token answers 404.",
  tags,
  auth: "none",
  requestHeaders: [{ name: shareTokenHeader, required: true, description: "The share link's token (never in the URL). Missing, unknown, expired or revoked: 404." }],
  pagination: true,
  responses: { 200: SharedProjectView },
  problems: [400, 404],
  handler: ({ page }, ctx) =>
    accessSharedProject(ctx.get(shareTokenHeader) || undefined, page).pipe(
      Effect.map(({ project, tasks }) => ({
        status: 200,
        body: { project, tasks },
        headers: noStore,
      })),
    ),
});

/** Share link routes. */
export const shareLinkRoutes = [createShareLinkRoute, listShareLinksRoute, revokeShareLinkRoute, accessShareLinkRoute];
