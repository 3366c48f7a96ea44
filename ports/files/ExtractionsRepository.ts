/** Archive extractions: a record per request, its status moved only by conditional update. */
import { Context, type Effect } from "effect";
import type { Extraction, ExtractionStatus } from "../../core/files/model/Extraction.js";

export interface ExtractionsRepository {
  /** Stores a new extraction. */
  readonly insert: (extraction: Extraction) => Effect.Effect<void>;
  /** The workspace an extraction id belongs to, or null. */
  readonly workspaceOf: (id: string) => Effect.Effect<string | null>;
  /** The extraction of the workspace, or null. */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<Extraction | null>;
  /** Stores `extraction` if the stored one is still in `expected`; false otherwise. */
  readonly update: (extraction: Extraction, expected: ExtractionStatus) => Effect.Effect<boolean>;
}
export const ExtractionsRepository = Context.GenericTag<ExtractionsRepository>("domainkit/files/ExtractionsRepository");
