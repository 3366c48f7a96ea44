/**
 * A workspace's drive: made once per workspace (with its root folder) when the host provisions
 * the workspace or on first use; read by members; its quota set by a workspace admin.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { requireMember, requireWorkspaceAdmin } from "./Access.js";
import { QuotaBelowUsage } from "./Errors.js";
import type { Drive, DriveView } from "./model/Drive.js";
import { NodeId, WorkspaceId } from "./model/Ids.js";
import { newNode } from "./model/Node.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The workspace's drive, created with an empty root folder and the default quota when missing. */
export const ensureDrive = (workspaceId: string, actorId: string): Effect.Effect<Drive, never, FilesServices> =>
  Effect.gen(function* () {
    const drives = yield* DriveRepository;
    const existing = yield* drives.find(workspaceId);
    if (existing !== null) return existing;
    const at = yield* now;
    const rootId = NodeId.make(yield* (yield* Ids).next);
    const ws = WorkspaceId.make(workspaceId);
    const drive: Drive = {
      workspaceId: ws,
      rootNodeId: rootId,
      quotaBytes: (yield* FilesSettings).defaultQuotaBytes,
      usedBytes: 0,
      reservedBytes: 0,
      changeSeq: 0,
      prunedThroughSeq: 0,
      aclEpoch: 1,
      createdAt: at,
      updatedAt: at,
    };
    const root = newNode({ id: rootId, workspaceId: ws, parentId: null, name: "root", kind: "folder", createdBy: actorId, createdAt: at });
    yield* (yield* Transactions).run(drives.create(drive, root));
    // Two first uses at once: one insert wins (primary key); both answer the stored drive.
    return (yield* drives.find(workspaceId)) ?? drive;
  }).pipe(withSpan("files.ensureDrive"));

const view = (d: Drive): DriveView => ({ rootNodeId: d.rootNodeId, quotaBytes: d.quotaBytes, usedBytes: d.usedBytes, reservedBytes: d.reservedBytes });

/** `GET /v1/workspaces/:id/drive` for a member. */
export const getDrive = (userId: string, workspaceId: string): Effect.Effect<DriveView, NotFound, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(workspaceId, userId);
    return view(yield* ensureDrive(workspaceId, userId));
  }).pipe(withSpan("files.getDrive"));

/** Fails unless `userId` is an admin of the workspace: NotFound for a non-member, else Forbidden. */
const requireQuotaAdmin = (workspaceId: string, userId: string, held: boolean) => requireWorkspaceAdmin(workspaceId, userId, "only a workspace admin sets the quota", held);

/** `PUT /v1/workspaces/:id/drive/quota` by a workspace admin; never below what is used and reserved; audited. */
export const setQuota = (
  userId: string,
  workspaceId: string,
  quotaBytes: number,
): Effect.Effect<DriveView, NotFound | Forbidden | QuotaBelowUsage, FilesServices> =>
  Effect.gen(function* () {
    yield* requireQuotaAdmin(workspaceId, userId, false);
    yield* ensureDrive(workspaceId, userId);
    const drives = yield* DriveRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const drive = yield* drives.lock(workspaceId);
        if (drive === null) return yield* Effect.fail(new NotFound({ resource: "drive" }));
        // Checked again under the lock, the membership held: a demotion committed meanwhile is seen.
        yield* requireQuotaAdmin(workspaceId, userId, true);
        if (quotaBytes < drive.usedBytes + drive.reservedBytes) {
          return yield* Effect.fail(
            new QuotaBelowUsage({
              usedBytes: drive.usedBytes,
              reservedBytes: drive.reservedBytes,
              detail: `the quota cannot be below the ${drive.usedBytes + drive.reservedBytes} bytes used and reserved`,
            }),
          );
        }
        const at = yield* now;
        yield* drives.setQuota(workspaceId, quotaBytes, at);
        // The admin's quota change is audited in its transaction (spec: admins manage quota and audit).
        yield* (yield* FilesAudit).append({
          id: yield* (yield* Ids).next,
          workspaceId: drive.workspaceId,
          actorId: userId,
          action: "drive.quota_set",
          targetId: workspaceId,
          reason: null,
          data: { from: drive.quotaBytes, to: quotaBytes },
          createdAt: at,
        });
        return view({ ...drive, quotaBytes });
      }),
    );
  }).pipe(withSpan("files.setQuota"));
