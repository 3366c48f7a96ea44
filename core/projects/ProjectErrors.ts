/**
 * Typed errors of the project module (stable `code`, `category` for the one HTTP mapper).
 * 409 on a task update means the state forbids the change whatever the version: an illegal
 * workflow move or a task in the trash. A stale version is 412 (kernel VersionMismatch).
 */
import { Data } from "effect";

/** The workflow table has no edge from -> to (409 illegal_status_transition). */
export class IllegalStatusTransition extends Data.TaggedError("IllegalStatusTransition")<{
  readonly from: string;
  readonly to: string;
  readonly detail?: string;
}> {
  readonly code = "illegal_status_transition";
  readonly category = "conflict" as const;
}

/** The task is in the trash: restore it before changing or commenting (409 task_deleted). */
export class TaskDeleted extends Data.TaggedError("TaskDeleted")<{ readonly detail?: string }> {
  readonly code = "task_deleted";
  readonly category = "conflict" as const;
}

/** Removing this member would leave the workspace without an owner (409 last_owner). */
export class LastOwner extends Data.TaggedError("LastOwner")<{ readonly detail?: string }> {
  readonly code = "last_owner";
  readonly category = "conflict" as const;
}

/** The client_mutation_id was already used by this author on this task for other content (422). */
export class ClientMutationIdReused extends Data.TaggedError("ClientMutationIdReused")<{ readonly detail?: string }> {
  readonly code = "client_mutation_id_reused";
  readonly category = "unprocessable" as const;
}
