/**
 * Contract kit for the AttachmentsRepository: an attachment reads back as written; a task's
 * attachments are listed in id order after the cursor; every state change is conditional (a
 * transition from a status the row is not in, or settling a thumbnail that is not pending,
 * writes nothing and answers false); expired uploads are found oldest first; only a purging
 * row is hard-deleted.
 */
import { Effect } from "effect";
import type { Attachment } from "../../../core/projects/model/Attachment.js";
import type { Project } from "../../../core/projects/model/Project.js";
import { AttachmentsRepository } from "../../../ports/projects/AttachmentsRepository.js";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { idsOf, seedProject, seedProjectWithTasks, uid, type SeedPorts } from "./fixtures.js";
import { AttachmentId, TaskId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type AttachmentsKitPorts = AttachmentsRepository | TasksRepository | SeedPorts;

const attachments = <A>(f: (r: AttachmentsRepository) => Effect.Effect<A>) => Effect.flatMap(AttachmentsRepository, f);
const ids = idsOf;

/** A pending attachment `n` of task `taskN` of `project`, its upload grant expiring at `at(expiresMs)`. */
export const attachmentRecord = (project: Project, taskN: number, n: number, overrides: Partial<Attachment> = {}): Attachment => ({
  id: AttachmentId.make(uid("att", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  taskId: TaskId.make(uid("task", taskN)),
  uploadedBy: "user-1",
  filename: `file-${n}.png`,
  contentType: "image/png",
  size: 1024 * n,
  sha256: "a".repeat(64),
  objectKey: `attachments/${uid("att", n)}`,
  status: "pending",
  scanDetail: null,
  uploadExpiresAt: at(3_600_000),
  completedAt: null,
  scannedAt: null,
  createdAt: at(n),
  thumbnailStatus: null,
  thumbnailKey: null,
  thumbnailContentType: null,
  thumbnailWidth: null,
  thumbnailHeight: null,
  thumbnailDetail: null,
  ...overrides,
});

const seed = seedProjectWithTasks;
const insertAll = (list: ReadonlyArray<Attachment>) => attachments((r) => Effect.forEach(list, (a) => r.insertAttachment(a), { discard: true }));
const find = (n: number) => attachments((r) => r.findAttachment(uid("att", n)));

/** The cases of the attachments repository kit. */
export const attachmentsCases: ReadonlyArray<KitCase<AttachmentsKitPorts>> = [
  {
    name: "attachments: an attachment reads back as written; a task's are listed in id order after the cursor",
    run: async (t, run) => {
      const project = await run(seed);
      const rows = [attachmentRecord(project, 1, 3), attachmentRecord(project, 1, 1), attachmentRecord(project, 2, 2), attachmentRecord(project, 1, 4)];
      await run(insertAll(rows));
      t.same(await run(find(3)), rows[0]);
      t.equal(await run(find(9)), null);
      t.same(ids(await run(attachments((r) => r.listAttachments({ taskId: uid("task", 1), limit: 10 })))), [uid("att", 1), uid("att", 3), uid("att", 4)]);
      t.same(ids(await run(attachments((r) => r.listAttachments({ taskId: uid("task", 1), afterId: uid("att", 1), limit: 1 })))), [uid("att", 3)]);
    },
  },
  {
    name: "attachments: a transition happens only from one of the given statuses, with its detail and times",
    run: async (t, run) => {
      const project = await run(seed);
      await run(insertAll([attachmentRecord(project, 1, 1)]));
      const complete = attachments((r) => r.transition({ id: uid("att", 1), from: ["pending"], to: "quarantined", completedAt: at(10) }));
      t.equal(await run(complete), true);
      t.equal(await run(complete), false, "no longer pending: a repeated completion writes nothing");
      const quarantined = await run(find(1));
      t.equal(quarantined?.status, "quarantined");
      t.equal(quarantined?.completedAt?.getTime(), at(10).getTime());
      t.equal(await run(attachments((r) => r.transition({ id: uid("att", 1), from: ["pending", "clean"], to: "infected" }))), false, "not in any of `from`");
      const scanned = await run(
        attachments((r) =>
          r.transition({ id: uid("att", 1), from: ["quarantined"], to: "clean", scannedAt: at(20), scanDetail: null, thumbnail: { status: "pending" } }),
        ),
      );
      t.equal(scanned, true);
      const clean = await run(find(1));
      t.equal(clean?.status, "clean");
      t.equal(clean?.scannedAt?.getTime(), at(20).getTime());
      t.equal(clean?.thumbnailStatus, "pending", "the thumbnail state is set in the same update");
      t.equal(clean?.completedAt?.getTime(), at(10).getTime(), "a time not given is kept");
      t.equal(await run(attachments((r) => r.transition({ id: uid("att", 9), from: ["pending"], to: "quarantined" }))), false, "unknown");
    },
  },
  {
    name: "attachments: a pending thumbnail of a clean attachment is settled once",
    run: async (t, run) => {
      const project = await run(seed);
      await run(
        insertAll([
          attachmentRecord(project, 1, 1, { status: "clean", thumbnailStatus: "pending" }),
          attachmentRecord(project, 1, 2, { status: "quarantined", thumbnailStatus: null }),
        ]),
      );
      const settle = attachments((r) =>
        r.settleThumbnail({ id: uid("att", 1), status: "ready", objectKey: "thumbs/1", contentType: "image/webp", width: 64, height: 48 }),
      );
      t.equal(await run(settle), true);
      const ready = await run(find(1));
      t.same(
        [ready?.thumbnailStatus, ready?.thumbnailKey, ready?.thumbnailContentType, ready?.thumbnailWidth, ready?.thumbnailHeight],
        ["ready", "thumbs/1", "image/webp", 64, 48],
      );
      t.equal(await run(attachments((r) => r.settleThumbnail({ id: uid("att", 1), status: "failed", detail: "late" }))), false, "already settled");
      t.equal((await run(find(1)))?.thumbnailStatus, "ready", "the first settlement stands");
      t.equal(await run(attachments((r) => r.settleThumbnail({ id: uid("att", 2), status: "unsupported" }))), false, "not clean, not pending");
    },
  },
  {
    name: "attachments: expiredUploads finds never-completed uploads expired before the cutoff, oldest first",
    run: async (t, run) => {
      const project = await run(seed);
      await run(
        insertAll([
          attachmentRecord(project, 1, 1, { uploadExpiresAt: at(300) }),
          attachmentRecord(project, 1, 2, { uploadExpiresAt: at(100) }),
          attachmentRecord(project, 1, 3, { uploadExpiresAt: at(200), status: "purging" }),
          attachmentRecord(project, 1, 4, { uploadExpiresAt: at(50), status: "clean" }),
          attachmentRecord(project, 1, 5, { uploadExpiresAt: at(1000) }),
        ]),
      );
      t.same(ids(await run(attachments((r) => r.expiredUploads(at(500), 10)))), [uid("att", 2), uid("att", 3), uid("att", 1)], "a completed upload never expires");
      t.same(ids(await run(attachments((r) => r.expiredUploads(at(300), 10)))), [uid("att", 2), uid("att", 3)], "strictly before the cutoff");
      t.same(ids(await run(attachments((r) => r.expiredUploads(at(500), 1)))), [uid("att", 2)]);
    },
  },
  {
    name: "attachments: quarantinedContent finds infected and scan_failed attachments scanned before the cutoff, oldest verdict first, until marked",
    run: async (t, run) => {
      const project = await run(seed);
      await run(
        insertAll([
          attachmentRecord(project, 1, 1, { status: "infected", scannedAt: at(300) }),
          attachmentRecord(project, 1, 2, { status: "scan_failed", scannedAt: at(100) }),
          attachmentRecord(project, 1, 3, { status: "clean", scannedAt: at(50) }),
          attachmentRecord(project, 1, 4, { status: "quarantined" }),
          attachmentRecord(project, 1, 5, { status: "infected", scannedAt: at(1000) }),
        ]),
      );
      t.same(ids(await run(attachments((r) => r.quarantinedContent(at(500), 10)))), [uid("att", 2), uid("att", 1)], "clean and unscanned content stays");
      t.same(ids(await run(attachments((r) => r.quarantinedContent(at(300), 10)))), [uid("att", 2)], "strictly before the cutoff");
      t.same(ids(await run(attachments((r) => r.quarantinedContent(at(500), 1)))), [uid("att", 2)]);
      t.equal(await run(attachments((r) => r.markContentPurged(uid("att", 2), at(600)))), true);
      t.equal(await run(attachments((r) => r.markContentPurged(uid("att", 2), at(700)))), false, "already marked");
      t.equal(await run(attachments((r) => r.markContentPurged(uid("att", 3), at(600)))), false, "a clean attachment's content is not purged");
      t.same(ids(await run(attachments((r) => r.quarantinedContent(at(500), 10)))), [uid("att", 1)], "a marked attachment is not read again");
      const kept = await run(find(2));
      t.same([kept?.status, kept?.scannedAt], ["scan_failed", at(100)], "the row and its status stay");
    },
  },
  {
    name: "attachments: only a purging attachment is hard-deleted",
    run: async (t, run) => {
      const project = await run(seed);
      await run(insertAll([attachmentRecord(project, 1, 1, { status: "purging" }), attachmentRecord(project, 1, 2)]));
      t.equal(await run(attachments((r) => r.deletePurging(uid("att", 2)))), false, "pending: kept");
      t.not(await run(find(2)), null);
      t.equal(await run(attachments((r) => r.deletePurging(uid("att", 1)))), true);
      t.equal(await run(find(1)), null);
      t.equal(await run(attachments((r) => r.deletePurging(uid("att", 1)))), false, "already gone");
    },
  },
  {
    name: "attachments: an attachment cannot point at a task in another tenant",
    run: async (t, run) => {
      await run(seed);
      const other = await run(seedProject(2));
      const exit = await run(Effect.exit(insertAll([attachmentRecord(other, 1, 1)])));
      t.equal(exit._tag, "Failure", "spec, composite tenant references: refused");
      t.equal(await run(find(1)), null, "nothing written");
    },
  },
];

/** Runs the attachments repository kit. */
export const attachmentsSuite = (options: SuiteOptions<AttachmentsKitPorts>): Promise<unknown> => runCases(options, attachmentsCases);

