/** Saved views (should-have): a user's named filters and sort for one project's task list. */
import { Schema } from "effect";
import { TaskStatus } from "./TaskWorkflow.js";

const Uuid = Schema.String.pipe(
  Schema.filter((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) || "must be a UUID"),
);

/** What a view keeps of the list: statuses, an assignee (null: unassigned), a field's value. */
export const SavedViewFilters = Schema.Struct({
  status: Schema.optional(Schema.Array(TaskStatus).pipe(Schema.maxItems(10))),
  assignee_id: Schema.optional(Schema.NullOr(Uuid)),
  field: Schema.optional(Schema.Struct({ field_id: Schema.String.pipe(Schema.maxLength(100)), value: Schema.Union(Schema.String.pipe(Schema.maxLength(2000)), Schema.Number) })),
});
export type SavedViewFilters = typeof SavedViewFilters.Type;

/** How a view orders the list. */
export const SavedViewSort = Schema.Struct({
  by: Schema.Literal("rank", "created_at", "updated_at", "title", "status"),
  direction: Schema.Literal("asc", "desc"),
});
export type SavedViewSort = typeof SavedViewSort.Type;

/** A saved view, private to its owner; the name is unique per owner and project. */
export interface SavedView {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly userId: string;
  readonly name: string;
  readonly filters: SavedViewFilters;
  readonly sort: SavedViewSort;
  readonly createdAt: Date;
}

/** Wire shape of a saved view. */
export const SavedViewView = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  user_id: Schema.String,
  name: Schema.String,
  filters: SavedViewFilters,
  sort: SavedViewSort,
  created_at: Schema.String,
});

/** Wire shape of a saved view. */
export const savedViewView = (v: SavedView): typeof SavedViewView.Type => ({
  id: v.id,
  project_id: v.projectId,
  user_id: v.userId,
  name: v.name,
  filters: v.filters,
  sort: v.sort,
  created_at: v.createdAt.toISOString(),
});
