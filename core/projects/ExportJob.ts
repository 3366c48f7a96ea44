/**
 * The export job: streams JSON lines of everything the requester may see in the workspace —
 * the workspace, its visible projects (a guest: only those shared with it) with their members,
 * tasks (trashed ones too), comments, attachment metadata and activity — into the object store,
 * in keyset pages, so memory stays bounded whatever the workspace's size. Visibility is
 * computed when the job runs; a requester no longer in the workspace gets a failed export.
 * The export is not a snapshot: rows written while it runs may or may not appear.
 *
 * No statement binds one parameter per visible project: the visible projects are walked once, in
 * keyset pages of at most `pageSize` (a workspace owner's: every project; anyone else's: its
 * project memberships), and for each such page (a listed ProjectScope) its project lines are
 * written, then each kind of row over its projects page by page, in (project_id, id) order: each
 * page reads about the rows it returns, along the table's (project_id, id) index. Memory holds one
 * page of projects and one page of rows. Lines: the header, then per page of projects its
 * projects, members, tasks, comments, attachments and activity; within a kind, (project, id)
 * order; a row always after its project's line.
 */
import { Chunk, Effect, Schema, Option, Stream } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { ExportsRepository, type ExportCursor, type ExportPage, type ExportProject } from "../../ports/projects/ExportsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { workspaceAccess } from "./Access.js";
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
import type { WorkspaceRole } from "./model/Roles.js";

/** The job kind of the workspace export; its key is the export id. */
export const workspaceExportJobKind = "projects.workspace_export";

/** Rows per page read from the database, and projects per page of visible projects (each a bounded id list). */
const pageSize = 500;

type Line = Readonly<Record<string, unknown>>;

const encoder = new TextEncoder();

/** Every keyset page of `read` (at most `limit` rows a page, each after the last row's cursor), until a short page. */
const walk = <A, C, R>(
  read: (after: C | undefined) => Effect.Effect<ReadonlyArray<A>, never, R>,
  limit: number,
  cursorOf: (last: A) => C,
): Stream.Stream<ReadonlyArray<A>, never, R> =>
  Stream.paginateEffect(undefined as C | undefined, (after) =>
    Effect.map(read(after), (rows) => {
      const last = rows[rows.length - 1];
      return [rows, rows.length < limit || last === undefined ? Option.none() : Option.some(cursorOf(last))] as const;
    }),
  );

/**
 * Every page of one read over the given projects (in the order the visible projects were walked,
 * the rows' project_id order), in (project_id, id) order; past a cursor, the projects before its
 * project are left out of the list.
 */
const pages = <A, R>(
  read: (page: ExportPage) => Effect.Effect<ReadonlyArray<A>, never, R>,
  scope: { readonly workspaceId: string; readonly projectIds: ReadonlyArray<string> },
  limit: number,
  cursorOf: (last: A) => ExportCursor,
) =>
  walk(
    (after: ExportCursor | undefined) =>
      read({ ...scope, projectIds: after === undefined ? scope.projectIds : scope.projectIds.slice(Math.max(0, scope.projectIds.indexOf(after.projectId))), after, limit }),
    limit,
    cursorOf,
  );

/** A row's cursor: its project and id. */
const rowCursor = (row: { readonly projectId: string; readonly id: string }): ExportCursor => ({ projectId: row.projectId, id: row.id });

/** A project's effective role for the requester: a workspace owner administers every project (null: no longer visible). */
const roleIn = (workspaceRole: WorkspaceRole, project: ExportProject) => (workspaceRole === "owner" ? "admin" : project.projectRole);

/** Runs one export to its end (a finished export is left as it is). */
export const runWorkspaceExport = (
  exportId: WorkspaceExportId,
): Effect.Effect<"done" | "failed" | "skipped", never, ExportsRepository | WorkspacesRepository | ObjectStore> =>
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
    const workspaceRole = access.right.membership.role;
    // The visible projects, a page at a time: every project of the workspace for an owner, else
    // those the requester is a member of.
    const projectPages = walk(
      (afterId: string | undefined) => repo.visibleProjects({ workspaceId: found.workspaceId, userId, everyProject: workspaceRole === "owner", afterId, limit: pageSize }),
      pageSize,
      (last) => last.id,
    );
    /** One page of visible projects as lines: the projects, then each kind of their rows, a page of rows at a time. */
    const linesOfPage = (projects: ReadonlyArray<ExportProject>): Stream.Stream<ReadonlyArray<Line>> => {
      const scope = { workspaceId: found.workspaceId, projectIds: projects.map((p) => p.id) };
      const rowsOf = <A>(read: (page: ExportPage) => Effect.Effect<ReadonlyArray<A>>, type: string, toLine: (row: A) => Line, cursorOf: (last: A) => ExportCursor) =>
        Stream.map(pages(read, scope, pageSize, cursorOf), (rows) => rows.map((row): Line => ({ type, ...toLine(row) })));
      const projectLines = projects.flatMap((project): Line[] => {
        const role = roleIn(workspaceRole, project);
        const { projectRole: _, ...fields } = project;
        return role === null ? [] : [{ type: "project", ...toWire(ProjectWithRole, { ...fields, role }) }];
      });
      return Stream.concatAll(
        Chunk.make(
          Stream.succeed<ReadonlyArray<Line>>(projectLines),
          rowsOf(repo.projectMembers, "project_member", (m) => toWire(ProjectMember, m), (m) => ({ projectId: m.projectId, id: m.userId })),
          rowsOf(repo.tasks, "task", (t) => toWire(Task, t), rowCursor),
          rowsOf(repo.comments, "comment", (c) => toWire(Comment, c), rowCursor),
          rowsOf(repo.attachments, "attachment", (a) => toWire(AttachmentPublic, attachmentPublic(a)), rowCursor),
          rowsOf(repo.events, "activity", (e) => toWire(TaskEvent, e), rowCursor),
        ),
      );
    };
    const head = Stream.succeed<ReadonlyArray<Line>>([
      { type: "export", id: found.id, workspace_id: found.workspaceId, requested_by: userId, format: "jsonl", version: 1 },
      { type: "workspace", ...toWire(WorkspaceWithRole, { ...access.right.workspace, role: workspaceRole }) },
    ]);
    let lines = 0;
    const context = yield* Effect.context<ExportsRepository>();
    // The visible projects are walked once; each page's rows follow its projects.
    const body = Stream.concat(head, Stream.flatMap(projectPages, linesOfPage)).pipe(
      Stream.filter((page) => page.length > 0),
      Stream.map((page) => {
        lines += page.length;
        return encoder.encode(page.map((line) => `${JSON.stringify(line)}\n`).join(""));
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
