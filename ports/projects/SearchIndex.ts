/**
 * The full-text index of tasks and comments (eventually consistent: fed by a consumer). Queries
 * filter by project visibility and live tasks inside the query, before the limit.
 */
import { Context, Effect } from "effect";
import type { SearchHit } from "../../core/projects/model/SearchHit.js";
import type { ProjectScope } from "./ProjectScope.js";

/** One indexed document (a task title or a comment body). */
export interface SearchDocument {
  readonly id: string;
  readonly kind: "task" | "comment";
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly text: string;
  /** The source's version: an older event never overwrites a newer document. */
  readonly version: number;
}

export type { SearchHit };

/** The index. */
export interface SearchIndex {
  /** Inserts or replaces the document unless the stored one has a version >= this one's. */
  readonly upsert: (doc: SearchDocument) => Effect.Effect<boolean>;
  /**
   * `upsert` for several documents of distinct ids at once (the outbox relay's batches): the
   * same outcome per document, in fewer statements. Optional.
   */
  readonly upsertMany?: (docs: ReadonlyArray<SearchDocument>) => Effect.Effect<void>;
  /**
   * Documents matching every term (each as a prefix), in the scope's projects, whose task is not
   * in the trash, newest first by id, strictly before `beforeId`, at most `limit`.
   */
  readonly search: (req: {
    readonly terms: ReadonlyArray<string>;
    readonly scope: ProjectScope;
    readonly beforeId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<SearchHit>>;
}
export const SearchIndex = Context.GenericTag<SearchIndex>("domainkit/projects/SearchIndex");
