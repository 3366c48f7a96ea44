/**
 * Storage of workspace exports, and the keyset reads an export job streams from. Every read
 * takes the project ids the requester may see and filters by them in the query.
 */
import { Context, Effect } from "effect";
import type { Attachment } from "../../core/projects/model/Attachment.js";
import type { WorkspaceExport } from "../../core/projects/model/WorkspaceExport.js";
import type { Comment } from "../../core/projects/model/Comment.js";
import type { ProjectMember } from "../../core/projects/model/ProjectMember.js";
import type { Task } from "../../core/projects/model/Task.js";
import type { TaskEvent } from "../../core/projects/model/TaskEvent.js";

/** One keyset page request over the rows of some projects, in id order. */
export interface ExportPage {
  readonly projectIds: ReadonlyArray<string>;
  readonly afterId?: string | undefined;
  readonly limit: number;
}

/** The export repository. */
export interface ExportsRepository {
  readonly insertExport: (e: WorkspaceExport) => Effect.Effect<void>;
  readonly findExport: (id: string) => Effect.Effect<WorkspaceExport | null>;
  /** Records the outcome of a pending export; false when it was no longer pending. */
  readonly finishExport: (e: WorkspaceExport) => Effect.Effect<boolean>;
  /** Done exports that completed before `cutoff`, oldest first (the retention purge's batch). */
  readonly exportsToExpire: (cutoff: Date, limit: number) => Effect.Effect<ReadonlyArray<WorkspaceExport>>;
  /** Moves a done export to `expired` (its object is gone); false when it was not done. */
  readonly markExpired: (id: string) => Effect.Effect<boolean>;
  readonly projectMembers: (req: ExportPage) => Effect.Effect<ReadonlyArray<ProjectMember & { readonly id: string }>>;
  /** Tasks, deleted ones included (they stay visible for restore and audit). */
  readonly tasks: (req: ExportPage) => Effect.Effect<ReadonlyArray<Task>>;
  readonly comments: (req: ExportPage) => Effect.Effect<ReadonlyArray<Comment>>;
  readonly attachments: (req: ExportPage) => Effect.Effect<ReadonlyArray<Attachment>>;
  readonly events: (req: ExportPage) => Effect.Effect<ReadonlyArray<TaskEvent>>;
}
export const ExportsRepository = Context.GenericTag<ExportsRepository>("domainkit/projects/ExportsRepository");
