/**
 * The search-indexing consumer (durable, at least once, eventually consistent): every task and
 * comment event upserts its document with the source's version, so a late or repeated event
 * never overwrites newer text. Trash is not indexed state: queries join the live task.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { SearchIndex, type SearchDocument } from "../../ports/projects/SearchIndex.js";

/** The inbox name of the indexing consumer. */
export const searchIndexingConsumerName = "projects.search_index";

const indexedTypes = new Set(["TaskCreated", "TaskChanged", "CommentAdded", "CommentEdited"]);

interface EventData {
  readonly project_id?: string;
  readonly task?: { readonly id: string; readonly title: string; readonly version: number };
  readonly comment?: { readonly id: string; readonly body: string };
}

/** The document an event describes, or null. */
export const documentOf = (event: EventEnvelope): SearchDocument | null => {
  const data = event.data as EventData | null;
  if (data === null || typeof data !== "object" || data.task === undefined || typeof data.project_id !== "string") return null;
  const common = { workspaceId: event.tenant_id, projectId: data.project_id, taskId: data.task.id, version: event.aggregate_version };
  if (event.type === "CommentAdded" || event.type === "CommentEdited") {
    return data.comment === undefined ? null : { ...common, id: data.comment.id, kind: "comment", text: data.comment.body };
  }
  return { ...common, id: data.task.id, kind: "task", text: data.task.title };
};

/** The consumer (shaped as adapters/worker's Consumer). */
export const searchIndexingConsumer = {
  name: searchIndexingConsumerName,
  handles: (event: EventEnvelope): boolean => indexedTypes.has(event.type),
  handle: (event: EventEnvelope): Effect.Effect<void, never, SearchIndex> => {
    const doc = documentOf(event);
    return doc === null ? Effect.void : Effect.asVoid(Effect.flatMap(SearchIndex, (index) => index.upsert(doc)));
  },
};
