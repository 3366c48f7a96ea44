/**
 * The search-indexing consumer (durable, at least once, eventually consistent): every task and
 * comment event upserts its document with the source's version, so a late or repeated event
 * never overwrites newer text. Trash is not indexed state: queries join the live task.
 */
import { Effect, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { SearchIndex, type SearchDocument } from "../../ports/projects/SearchIndex.js";
import { CommentAdded, CommentEdited, TaskChanged, TaskCreated } from "./Events.js";

/** The inbox name of the indexing consumer. */
export const searchIndexingConsumerName = "projects.search_index";

const indexedTypes = new Set<string>([TaskCreated.type, TaskChanged.type, CommentAdded.type, CommentEdited.type]);

// The document needs a few strings of the event, the same on its stored (encoded) side: checking
// that shape (refinements included) costs a quarter of decoding the envelope, which the relay
// did for every event of every batch.
const isIndexedEvent = Schema.is(Schema.encodedBoundSchema(Schema.Union(TaskCreated.envelope, TaskChanged.envelope, CommentAdded.envelope, CommentEdited.envelope)));

/** The document an event describes, or null (an event of another type, or one that does not fit its declared event). */
export const documentOf = (envelope: EventEnvelope): SearchDocument | null => {
  const event: unknown = envelope;
  if (!isIndexedEvent(event)) return null;
  const version = event.aggregate_version;
  switch (event.type) {
    case "TaskCreated":
    case "TaskChanged": {
      const { task } = event.data;
      return { workspaceId: event.tenant_id, projectId: event.data.project_id, taskId: task.id, version, id: task.id, kind: "task", text: task.title };
    }
    case "CommentAdded":
    case "CommentEdited": {
      const { task, comment } = event.data;
      return { workspaceId: event.tenant_id, projectId: event.data.project_id, taskId: task.id, version, id: comment.id, kind: "comment", text: comment.body };
    }
    default:
      return null;
  }
};

/** The consumer (shaped as adapters/worker's Consumer). */
export const searchIndexingConsumer = {
  name: searchIndexingConsumerName,
  handles: (event: EventEnvelope): boolean => indexedTypes.has(event.type),
  handle: (event: EventEnvelope): Effect.Effect<void, never, SearchIndex> => {
    const doc = documentOf(event);
    return doc === null ? Effect.void : Effect.asVoid(Effect.flatMap(SearchIndex, (index) => index.upsert(doc)));
  },
  /** A relay batch: per document only its newest version (the others would be refused anyway), in one statement where the index can. */
  handleBatch: (events: ReadonlyArray<EventEnvelope>): Effect.Effect<void, never, SearchIndex> => {
    const newest = new Map<string, SearchDocument>();
    for (const event of events) {
      const doc = documentOf(event);
      if (doc === null) continue;
      const known = newest.get(doc.id);
      if (known === undefined || known.version < doc.version) newest.set(doc.id, doc);
    }
    const docs = [...newest.values()];
    return Effect.flatMap(SearchIndex, (index) =>
      index.upsertMany !== undefined ? index.upsertMany(docs) : Effect.forEach(docs, (doc) => index.upsert(doc), { discard: true }),
    );
  },
};
