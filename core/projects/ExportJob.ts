/**
 * The export job: streams JSON lines of everything the requester may see in the workspace —
 * the workspace, its visible projects (a guest: only those shared with it) with their members,
 * tasks (trashed ones too), comments, attachment metadata and activity — into the object store,
 * in keyset pages, so memory stays bounded whatever the workspace's size. Visibility is
 * computed when the job runs; a requester no longer in the workspace gets a failed export.
 * The export is not a snapshot: rows written while it runs may or may not appear.
 */
import { Chunk, Effect, Schema, Option, Stream } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { ExportsRepository, type ExportPage } from "../../ports/projects/ExportsRepository.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, visibleProjectIds, workspaceAccess } from "./Access.js";
import { toWire } from "../kernel/Wire.js";
import { AttachmentPublic, attachmentPublic } from "./model/Attachment.js";
import { Comment } from "./model/Comment.js";
import { ProjectWithRole } from "./model/Project.js";
import { ProjectMember } from "./model/ProjectMember.js";
import { Task } from "./model/Task.js";
import { TaskEvent } from "./model/TaskEvent.js";
import { WorkspaceWithRole } from "./model/Workspace.js";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { WorkspaceExportId } from "./model/Ids.js";

/** The job kind of the workspace export; its key is the export id. */
export const workspaceExportJobKind = "projects.workspace_export";

/** Rows per page read from the database. */
const pageSize = 500;

type Line = Readonly<Record<string, unknown>>;

/** Every page of one kind as lines, until a short page. */
const paged = <A extends { readonly id: string }>(
  read: (page: ExportPage) => Effect.Effect<ReadonlyArray<A>>,
  projectIds: ReadonlyArray<string>,
  type: string,
  toLine: (row: A) => Line,
): Stream.Stream<Line> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (afterId) =>
    Effect.map(read({ projectIds, afterId, limit: pageSize }), (rows) => {
      const last = rows[rows.length - 1];
      const lines = Chunk.fromIterable(rows.map((row) => ({ type, ...toLine(row) })));
      return [lines, rows.length < pageSize || last === undefined ? Option.none() : Option.some(last.id)] as const;
    }),
  );

/** Runs one export to its end (a finished export is left as it is). */
export const runWorkspaceExport = (
  exportId: WorkspaceExportId,
): Effect.Effect<"done" | "failed" | "skipped", never, ExportsRepository | WorkspacesRepository | ProjectsRepository | ObjectStore> =>
  Effect.gen(function* () {
    const repo = yield* ExportsRepository;
    const found = yield* repo.findExport(exportId);
    if (found === null || found.status !== "pending") return "skipped" as const;
    const userId = found.requestedBy;
    const access = yield* Effect.either(workspaceAccess(userId, found.workspaceId));
    if (access._tag === "Left") {
      yield* repo.finishExport({ ...found, status: "failed", error: "the requester is no longer a member of the workspace", completedAt: yield* now });
      return "failed" as const;
    }
    const projectIds = yield* visibleProjectIds(userId, found.workspaceId);
    const projects: Line[] = [];
    for (const projectId of projectIds) {
      const project = yield* Effect.either(projectAccess(userId, projectId));
      if (project._tag === "Right") projects.push({ type: "project", ...toWire(ProjectWithRole, { ...project.right.project, role: project.right.role }) });
    }
    const head = Stream.fromIterable<Line>([
      { type: "export", id: found.id, workspace_id: found.workspaceId, requested_by: userId, format: "jsonl", version: 1 },
      { type: "workspace", ...toWire(WorkspaceWithRole, { ...access.right.workspace, role: access.right.membership.role }) },
      ...projects,
    ]);
    let lines = 0;
    const context = yield* Effect.context<ExportsRepository>();
    const body = Stream.concatAll(
      Chunk.make(
        head,
        paged(repo.projectMembers, projectIds, "project_member", (m) => toWire(ProjectMember, m)),
        paged(repo.tasks, projectIds, "task", (t) => toWire(Task, t)),
        paged(repo.comments, projectIds, "comment", (c) => toWire(Comment, c)),
        paged(repo.attachments, projectIds, "attachment", (a) => toWire(AttachmentPublic, attachmentPublic(a))),
        paged(repo.events, projectIds, "activity", (e) => toWire(TaskEvent, e)),
      ),
    ).pipe(
      Stream.map((line) => {
        lines += 1;
        return new TextEncoder().encode(`${JSON.stringify(line)}\n`);
      }),
      Stream.provideContext(context),
    );
    const stored = yield* (yield* ObjectStore).put(found.objectKey, body);
    yield* repo.finishExport({ ...found, status: "done", size: stored.size, sha256: stored.sha256, lineCount: lines, completedAt: yield* now });
    return "done" as const;
  }).pipe(withSpan("Projects.runWorkspaceExport"));

/** The export as a job: payload `{ export_id }`. */
export const workspaceExportJob = defineJob({
  kind: workspaceExportJobKind,
  payload: Schema.Struct({ export_id: WorkspaceExportId }),
  handle: (payload) => Effect.asVoid(runWorkspaceExport(payload.export_id)),
});
