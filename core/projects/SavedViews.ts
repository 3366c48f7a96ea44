/**
 * Saved views: any project reader saves named filters and sort for the project's task list.
 * A view is private to its owner: anyone else (the workspace owner included) gets 404. A member
 * removed from the project no longer reaches its views either (access is rechecked). A field
 * filter must name a field of the project with a value its type accepts. `GET
 * /v1/projects/:id/tasks?view=` applies a view (TaskQueries.listTasksInView).
 */
import { Effect } from "effect";
import { Conflict, NotFound, ValidationFailed, type Forbidden } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import type { Principal } from "../../ports/Principal.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { Transactions } from "../../ports/Transactions.js";
import { SavedViewsRepository } from "../../ports/projects/SavedViewsRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireRight, requireUser } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { validFieldValue } from "./CustomFields.js";
import type { SavedView, SavedViewFilters, SavedViewSort } from "./model/SavedView.js";
import { withSpan } from "../kernel/Span.js";
import { ProjectId, SavedViewId } from "./model/Ids.js";

/** Services of the saved view commands. */
export type SavedViewServices = WorkspacesRepository | ProjectsRepository | SavedViewsRepository | CustomFieldsRepository | Ids | Transactions;

/** A field filter must name a field of this project and a value of the field's type (422 otherwise). */
const validFieldFilter = (projectId: ProjectId, filters: SavedViewFilters): Effect.Effect<SavedViewFilters, ValidationFailed, CustomFieldsRepository> =>
  Effect.gen(function* () {
    if (filters.field === undefined) return filters;
    const field = yield* (yield* CustomFieldsRepository).findField(filters.field.field_id);
    if (field === null || field.projectId !== projectId) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "filters.field.field_id", message: "is not a field of this project" }] }));
    }
    const value = yield* validFieldValue(field, filters.field.value).pipe(
      Effect.mapError((e) => new ValidationFailed({ errors: e.errors.map((error) => ({ ...error, path: "filters.field.value" })) })),
    );
    return { ...filters, field: { field_id: field.id, value } };
  });

/** Most views one user keeps per project. */
export const maxViewsPerProject = 50;

/** Saves a view of a project for the caller (409 saved_view_exists for a taken name). */
export const createSavedView = (
  principal: Principal,
  projectId: ProjectId,
  input: { readonly name: string; readonly filters: SavedViewFilters; readonly sort: SavedViewSort },
): Effect.Effect<SavedView, Forbidden | NotFound | ValidationFailed | Conflict, SavedViewServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "read");
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: "must be 1 to 100 characters" }] }));
    const filters = yield* validFieldFilter(projectId, input.filters);
    const repo = yield* SavedViewsRepository;
    const view: SavedView = {
      id: SavedViewId.make(yield* (yield* Ids).next),
      workspaceId: access.project.workspaceId,
      projectId,
      userId,
      name,
      filters,
      sort: input.sort,
      createdAt: yield* now,
    };
    // Counted and inserted under the project's lock: creations racing at the last place are
    // decided one after the other, so the bound holds (the list reads at most the bound).
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* ProjectsRepository).findProject(projectId, { lock: true });
        if ((yield* repo.listViews(projectId, userId)).length >= maxViewsPerProject) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "name", message: `at most ${maxViewsPerProject} views per project` }] }));
        }
        if (!(yield* repo.insertView(view))) {
          return yield* Effect.fail(new Conflict({ code: "saved_view_exists", detail: `You already have a view named "${name}" in this project.` }));
        }
        return view;
      }),
    );
  }).pipe(withSpan("Projects.createSavedView"));

/** The caller's views of a project. */
export const listSavedViews = (principal: Principal, projectId: ProjectId): Effect.Effect<ReadonlyArray<SavedView>, Forbidden | NotFound, SavedViewServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* requireRight(yield* projectAccess(userId, projectId), "read");
    return yield* (yield* SavedViewsRepository).listViews(projectId, userId);
  });

/** Deletes one of the caller's views (idempotent for its owner: a second delete is a 404). */
export const deleteSavedView = (principal: Principal, viewId: SavedViewId): Effect.Effect<void, Forbidden | NotFound, SavedViewServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const repo = yield* SavedViewsRepository;
    const view = yield* repo.findView(viewId);
    const hidden = new NotFound({ resource: "view", detail: "No such view." });
    if (view === null || view.userId !== userId) return yield* Effect.fail(hidden);
    yield* Effect.mapError(projectAccess(userId, view.projectId), () => hidden);
    yield* repo.deleteView(viewId);
  });
