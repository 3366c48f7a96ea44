/** Storage of saved views. */
import { Context, Effect } from "effect";
import type { SavedView } from "../../core/projects/model/SavedView.js";

/** The saved view repository. */
export interface SavedViewsRepository {
  /** Inserts a view; false when the owner already has a view of that name in the project. */
  readonly insertView: (view: SavedView) => Effect.Effect<boolean>;
  readonly findView: (id: string) => Effect.Effect<SavedView | null>;
  /** The owner's views of a project by name (bounded: at most 50 per owner and project). */
  readonly listViews: (projectId: string, userId: string) => Effect.Effect<ReadonlyArray<SavedView>>;
  readonly deleteView: (id: string) => Effect.Effect<boolean>;
}
export const SavedViewsRepository = Context.GenericTag<SavedViewsRepository>("domainkit/projects/SavedViewsRepository");
