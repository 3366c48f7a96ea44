/** Routes of saved views (private to their owner). */
import { Effect, Schema } from "effect";
import { SavedViewFilters, SavedViewSort, SavedViewView } from "../../../core/projects/model/SavedView.js";
import { createSavedView, deleteSavedView, listSavedViews } from "../../../core/projects/SavedViews.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { ProjectParams, SavedViewParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** Body of POST /v1/projects/:id/views. */
export const SavedViewBody = Schema.Struct({
  name: Schema.String,
  filters: Schema.optionalWith(SavedViewFilters, { default: () => ({}) }),
  sort: Schema.optionalWith(SavedViewSort, { default: () => ({ by: "rank" as const, direction: "asc" as const }) }),
});

/** POST /v1/projects/:id/views — any project reader, for themselves. */
export const createSavedViewRoute = defineRoute({
  method: "POST",
  path: "/v1/projects/:id/views",
  operationId: "createSavedView",
  summary: "Save a view (filters and sort) of a project's tasks",
  description: "409 saved_view_exists when you already have a view of that name in the project.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: ProjectParams,
  body: SavedViewBody,
  responses: { 201: SavedViewView },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    createSavedView(principal, params.id, body).pipe(Effect.map((view) => ({ status: 201, body: view }))),
});

/** GET /v1/projects/:id/views — the caller's own views (bounded). */
export const listSavedViewsRoute = defineRoute({
  method: "GET",
  path: "/v1/projects/:id/views",
  operationId: "listSavedViews",
  summary: "List your saved views of a project",
  tags,
  auth: "required",
  params: ProjectParams,
  responses: { 200: PageOf(SavedViewView) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    listSavedViews(principal, params.id).pipe(Effect.map((views) => ({ status: 200, body: { data: views, next_cursor: null } }))),
});

/** DELETE /v1/views/:id — the owner only. */
export const deleteSavedViewRoute = defineRoute({
  method: "DELETE",
  path: "/v1/views/:id",
  operationId: "deleteSavedView",
  summary: "Delete one of your saved views",
  tags,
  auth: "required",
  params: SavedViewParams,
  responses: { 204: null },
  problems: [404],
  handler: ({ principal, params }) => deleteSavedView(principal, params.id).pipe(Effect.as({ status: 204 })),
});

/** Saved view routes. */
export const savedViewRoutes = [createSavedViewRoute, listSavedViewsRoute, deleteSavedViewRoute];
