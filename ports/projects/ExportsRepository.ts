/**
 * Storage of workspace exports, and the keyset reads an export job streams from: the requester's
 * visible projects a page at a time, and each kind of row over a ProjectScope (a short list of
 * ids, or the requester's visibility within the workspace) filtered in the query, so no
 * statement binds one parameter per project.
 */
import { Context, Effect } from "effect";
import type { Attachment } from "../../core/projects/model/Attachment.js";
import type { WorkspaceExport } from "../../core/projects/model/WorkspaceExport.js";
import type { Comment } from "../../core/projects/model/Comment.js";
import type { Project } from "../../core/projects/model/Project.js";
import type { ProjectRole } from "../../core/projects/model/Roles.js";
import type { ProjectMember } from "../../core/projects/model/ProjectMember.js";
import type { Task } from "../../core/projects/model/Task.js";
import type { TaskEvent } from "../../core/projects/model/TaskEvent.js";
import type { ProjectScope } from "./ProjectScope.js";

/** A row's place in an export page's order: its project, then its key within the project. */
export interface ExportCursor {
  readonly projectId: string;
  /** The row's id (a project membership's: its user id). */
  readonly id: string;
}

/**
 * One keyset page request over the rows of the scope's projects, in (project_id, id) order, the
 * order of each table's (project_id, id) index, strictly after `after` (an empty list: nothing).
 * A list is of projects of `workspaceId` when given (a table keyed by (workspace_id, project_id,
 * id) follows its key with it), in any order (the repository walks it in project id order); past
 * a cursor, the projects before the cursor's may be left out of it.
 */
export type ExportPage = ProjectScope & {
  readonly workspaceId?: string | undefined;
  readonly after?: ExportCursor | undefined;
  readonly limit: number;
};

/** A project of an export with the requester's project membership role (null: none, or not read). */
export type ExportProject = Project & { readonly projectRole: ProjectRole | null };

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
  /**
   * One keyset page (id order) of the projects `userId` sees in the workspace: every project when
   * `everyProject` (a workspace owner, who administers them all: `projectRole` is not read and may
   * be null), else those it is a member of, each with its project membership role.
   */
  readonly visibleProjects: (req: {
    readonly workspaceId: string;
    readonly userId: string;
    readonly everyProject: boolean;
    readonly afterId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<ExportProject>>;
  /** Project memberships in (project_id, user_id) order; each with an `id`, "<project id>/<user id>". */
  readonly projectMembers: (req: ExportPage) => Effect.Effect<ReadonlyArray<ProjectMember & { readonly id: string }>>;
  /** Tasks, deleted ones included (they stay visible for restore and audit). */
  readonly tasks: (req: ExportPage) => Effect.Effect<ReadonlyArray<Task>>;
  readonly comments: (req: ExportPage) => Effect.Effect<ReadonlyArray<Comment>>;
  readonly attachments: (req: ExportPage) => Effect.Effect<ReadonlyArray<Attachment>>;
  readonly events: (req: ExportPage) => Effect.Effect<ReadonlyArray<TaskEvent>>;
}
export const ExportsRepository = Context.GenericTag<ExportsRepository>("domainkit/projects/ExportsRepository");
