/**
 * Records what happened to a task: one append-only TaskEvent (activity) and one outbox envelope
 * carrying the same id. Call inside the command's transaction, so the task write, its
 * TaskEvent and its outbox row commit together or not at all (spec rule 3). The envelope is
 * one of the module's declared events (core/projects/Events.ts); one that does not fit is a bug.
 */
import { Effect, Schema } from "effect";
import { makeEvent } from "../kernel/EventEnvelope.js";
import type { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { Task } from "./model/Task.js";
import { toWire } from "../kernel/Wire.js";
import type { TaskEvent } from "./model/TaskEvent.js";
import {
  AttachmentAdded,
  AttachmentChanged,
  AttachmentScanned,
  CommentAdded,
  CommentEdited,
  ProjectEvent,
  TaskChanged,
  TaskCreated,
} from "./Events.js";
import { TaskEventId } from "./model/Ids.js";

// Every fact is checked against its declared event (core/projects/Events.ts) before it is written:
// its encoded shape, refinements included (the data is already the wire form toWire made of
// typed values, so decoding it back, 4x the cost on every task write, proved nothing more).
const fitsDeclaredEvent = Schema.is(Schema.encodedBoundSchema(ProjectEvent));

/** Activity kinds and the event type each is published as. */
export const factTypes = {
  "task.created": TaskCreated.type,
  "task.updated": TaskChanged.type,
  "task.deleted": TaskChanged.type,
  "task.restored": TaskChanged.type,
  "comment.added": CommentAdded.type,
  "comment.edited": CommentEdited.type,
  /** A custom field value set or cleared: a change of the task, at its new version. */
  "task.field_set": TaskChanged.type,
  /** An attachment's upload completed (it is quarantined until scanned). */
  "attachment.added": AttachmentAdded.type,
  /** An attachment's scan finished: clean (downloadable) or infected (kept quarantined). */
  "attachment.scanned": AttachmentScanned.type,
  /** An attachment's thumbnail is ready. */
  "attachment.thumbnail_ready": AttachmentChanged.type,
} as const;
export type FactKind = keyof typeof factTypes;

/** Appends the TaskEvent and the outbox envelope for `task` at its current version. */
export const recordTaskFact = (input: {
  readonly task: Task;
  readonly actorId: string;
  readonly kind: FactKind;
  readonly data?: Readonly<Record<string, unknown>>;
  /** The envelope's aggregate when it is not the task itself (a comment). */
  readonly aggregate?: { readonly id: string; readonly version: number };
}): Effect.Effect<TaskEvent, never, TasksRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    const { task } = input;
    const data = { kind: input.kind, project_id: task.projectId, task: toWire(Task, task), ...input.data };
    const envelope = yield* makeEvent({
      type: factTypes[input.kind],
      tenant_id: task.workspaceId,
      aggregate_id: input.aggregate?.id ?? task.id,
      aggregate_version: input.aggregate?.version ?? task.version,
      actor_id: input.actorId,
      data,
    });
    if (!fitsDeclaredEvent(envelope)) {
      return yield* Effect.die(new Error(`task fact ${input.kind}: the envelope does not fit its declared event ${factTypes[input.kind]}`));
    }
    const event: TaskEvent = {
      id: TaskEventId.make(envelope.id),
      workspaceId: task.workspaceId,
      projectId: task.projectId,
      taskId: task.id,
      actorId: input.actorId,
      kind: input.kind,
      data,
      createdAt: new Date(envelope.occurred_at),
    };
    yield* (yield* TasksRepository).appendEvent(event);
    yield* (yield* Outbox).append([envelope]);
    return event;
  });
