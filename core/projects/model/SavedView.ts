/** Saved views (should-have): a user's named filters and sort for one project's task list. */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { TaskStatus } from "./Task.js";
import { ProjectId, SavedViewId, WorkspaceId } from "./Ids.js";

const Uuid = Schema.String.pipe(
  Schema.filter((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) || "must be a UUID", {
    // Property tests draw UUIDs (random strings would almost never be one).
    arbitrary: () => (fc) => fc.uuid(),
  }),
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
export const SavedView = Schema.Struct({
  id: SavedViewId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  userId: Schema.String,
  name: Schema.String,
  filters: SavedViewFilters,
  sort: SavedViewSort,
  createdAt: Schema.DateFromSelf,
});
export type SavedView = typeof SavedView.Type;

/** Wire shape of a saved view. */
export const SavedViewView = wireShape(Schema.Struct(Struct.omit(SavedView.fields, "workspaceId")));
