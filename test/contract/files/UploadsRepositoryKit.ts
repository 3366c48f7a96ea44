/**
 * Contract kit for UploadsRepository (ports/files/UploadsRepository.ts): a session and its parts
 * are found only under their workspace, parts by part number; settling is conditional on `open`,
 * so it happens once (the first settle answers the bytes the session held and zeroes its
 * reservation, any later one answers null and writes nothing); a completed session names its
 * version; a part's reported ETag is recorded and replaced by a later report, and a report for a
 * part the session lacks answers false.
 */
import { Effect } from "effect";
import { UploadSessionId, type NodeId, type WorkspaceId } from "../../../core/files/model/Ids.js";
import type { FileVersion } from "../../../core/files/model/FileVersion.js";
import type { UploadPart, UploadSession, UploadStatus } from "../../../core/files/model/UploadSession.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { UploadsRepository } from "../../../ports/files/UploadsRepository.js";
import { VersionsRepository } from "../../../ports/files/VersionsRepository.js";
import { at, runCases, warmUp, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { inTransaction, nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";
import { versionRecord } from "./VersionsRepositoryKit.js";

/** The ports this kit needs: the repository, the drive its sessions belong to, and versions for a completion. */
export type UploadsRepositoryKitPorts = UploadsRepository | VersionsRepository | NodesRepository | DriveSeedPorts;

const uploads = <A>(f: (r: UploadsRepository) => Effect.Effect<A>) => Effect.flatMap(UploadsRepository, f);

/** Upload session id `n` (kind digit 5). */
export const uploadKitId = (n: number): UploadSessionId => UploadSessionId.make(driveKitId(5, n));

/** An open session `n` of `sizeBytes` in parts of 100 bytes into folder `parentId`, with its parts. */
export const uploadRecord = (
  workspaceId: WorkspaceId,
  parentId: NodeId,
  n: number,
  sizeBytes = 250,
): { readonly session: UploadSession; readonly parts: ReadonlyArray<UploadPart> } => {
  const partCount = Math.max(1, Math.ceil(sizeBytes / 100));
  const session: UploadSession = {
    id: uploadKitId(n),
    workspaceId,
    parentId,
    nodeId: null,
    name: `upload-${n}.bin`,
    sizeBytes,
    sha256: "a".repeat(64),
    contentType: "application/octet-stream",
    partSizeBytes: 100,
    partCount,
    status: "open",
    reservedBytes: sizeBytes,
    versionId: null,
    storeUploadId: null,
    createdBy: "kit-user",
    expiresAt: at(n + 3_600_000),
    createdAt: at(n),
    updatedAt: at(n),
  };
  const parts = Array.from({ length: partCount }, (_, i): UploadPart => ({
    sessionId: session.id,
    workspaceId,
    partNumber: i + 1,
    sizeBytes: Math.min(100, sizeBytes - i * 100),
    sha256: String(i + 1).padStart(64, "b"),
    objectKey: `kit/${session.id}/part-${i + 1}`,
    etag: null,
  }));
  return { session, parts };
};

/** Drive `n` with open session `n` (parts inserted in reverse order) in its root. */
const seedUpload = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(n);
    const { session, parts } = uploadRecord(workspaceId, root.id, n);
    yield* uploads((r) => r.insert(session, [...parts].reverse()));
    return { workspaceId, root, session, parts };
  });

const settle = (workspaceId: string, id: string, to: Exclude<UploadStatus, "open">, versionId: string | null = null, ms = 60) =>
  uploads((r) => r.settle({ workspaceId, id, to, versionId, at: at(ms) }));

/** The cases of the UploadsRepository kit. */
export const uploadsRepositoryCases: ReadonlyArray<KitCase<UploadsRepositoryKitPorts>> = [
  {
    name: "uploads: a session and its parts are found under their workspace only, parts by part number",
    run: async (t, run) => {
      const { workspaceId, session, parts } = await run(seedUpload(1));
      const other = await run(seedDrive(2));
      t.same(await run(uploads((r) => r.find(workspaceId, session.id))), session, "stored as given, holding its size as reserved");
      t.same(await run(uploads((r) => r.parts(workspaceId, session.id))), parts, "in part-number order");
      t.equal(await run(uploads((r) => r.workspaceOf(session.id))), workspaceId);
      t.equal(await run(uploads((r) => r.workspaceOf(uploadKitId(99)))), null);
      t.equal(await run(uploads((r) => r.find(other.workspaceId, session.id))), null, "absent under another workspace");
      t.same(await run(uploads((r) => r.parts(other.workspaceId, session.id))), [], "its parts too");
    },
  },
  {
    name: "uploads: settling happens once: the first settle answers the bytes held and releases them, a later one answers null and writes nothing",
    run: async (t, run) => {
      const { workspaceId, session } = await run(seedUpload(1));
      t.equal(await run(settle(workspaceId, session.id, "aborted", null, 60)), 250, "the bytes the session held");
      const aborted = await run(uploads((r) => r.find(workspaceId, session.id)));
      t.same([aborted?.status, aborted?.reservedBytes, aborted?.updatedAt], ["aborted", 0, at(60)], "settled with no reservation left");
      t.equal(await run(settle(workspaceId, session.id, "expired", null, 70)), null, "no longer open");
      t.equal(await run(settle(workspaceId, session.id, "aborted", null, 80)), null, "a repeated abort releases nothing again");
      t.same(await run(uploads((r) => r.find(workspaceId, session.id))), aborted, "the refused settles wrote nothing");
    },
  },
  {
    name: "uploads: a user's open sessions of a workspace are listed, not another user's, another workspace's or a settled one",
    run: async (t, run) => {
      const { workspaceId, root, session } = await run(seedUpload(1));
      const other = await run(seedDrive(2));
      const second = uploadRecord(workspaceId, root.id, 3);
      const someoneElse = uploadRecord(workspaceId, root.id, 4);
      const settled = uploadRecord(workspaceId, root.id, 5);
      const elsewhere = uploadRecord(other.workspaceId, other.root.id, 6);
      await run(uploads((r) => r.insert(second.session, second.parts)));
      await run(uploads((r) => r.insert({ ...someoneElse.session, createdBy: "kit-other-user" }, someoneElse.parts)));
      await run(uploads((r) => r.insert(settled.session, settled.parts)));
      await run(uploads((r) => r.insert(elsewhere.session, elsewhere.parts)));
      await run(settle(workspaceId, settled.session.id, "aborted"));
      const open = await run(uploads((r) => r.openOf(workspaceId, "kit-user")));
      t.same(open.map((s) => s.id).sort(), [session.id, second.session.id].sort(), "the user's open sessions of that workspace only");
      t.same(await run(uploads((r) => r.openOf(workspaceId, "kit-nobody"))), [], "none for a user without one");
    },
  },
  {
    name: "uploads: a completed session names its version; completing again, or through another workspace, is refused",
    run: async (t, run) => {
      const { workspaceId, root, session } = await run(seedUpload(1));
      const other = await run(seedDrive(2));
      t.equal(await run(settle(other.workspaceId, session.id, "failed")), null, "not through another workspace");
      t.equal((await run(uploads((r) => r.find(workspaceId, session.id))))?.status, "open");
      const version = await run(
        Effect.gen(function* () {
          const file = yield* seedNode(nodeRecord(workspaceId, 1, root.id, session.name, "file"));
          const version: FileVersion = { ...versionRecord(workspaceId, file.id, 1, 1), sizeBytes: session.sizeBytes, uploadSessionId: session.id };
          yield* Effect.flatMap(VersionsRepository, (r) => r.insert(version));
          return version;
        }),
      );
      t.equal(await run(settle(workspaceId, session.id, "completed", version.id, 90)), 250);
      const completed = await run(uploads((r) => r.find(workspaceId, session.id)));
      t.same([completed?.status, completed?.versionId, completed?.reservedBytes], ["completed", version.id, 0]);
      t.equal(await run(settle(workspaceId, session.id, "completed", version.id, 91)), null, "completed once");
      t.equal(await run(settle(workspaceId, session.id, "expired", null, 92)), null, "an expiry after completion releases nothing");
      t.same(await run(uploads((r) => r.find(workspaceId, session.id))), completed);
    },
  },
  {
    name: "uploads: racing settles on separate connections: exactly one releases the session's bytes",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const { workspaceId, session } = await run(seedUpload(1));
      await run(warmUp(2, uploads((r) => r.find(workspaceId, session.id))));
      const settled = await run(
        Effect.all(
          [inTransaction(settle(workspaceId, session.id, "aborted", null, 60)), inTransaction(settle(workspaceId, session.id, "expired", null, 61))],
          { concurrency: "unbounded" },
        ),
      );
      t.same(settled.filter((bytes) => bytes !== null), [250], "one settle answers the bytes, the other null");
      const stored = await run(uploads((r) => r.find(workspaceId, session.id)));
      t.equal(stored?.status, settled[0] !== null ? "aborted" : "expired", "the winner's status is stored");
      t.equal(stored?.reservedBytes, 0);
    },
  },
  {
    name: "uploads: a part's reported ETag is recorded and replaced by a later report; a part the session lacks answers false",
    run: async (t, run) => {
      const { workspaceId, session } = await run(seedUpload(1));
      const other = await run(seedDrive(2));
      const report = (ws: string, partNumber: number, etag: string) => run(uploads((r) => r.recordPart({ workspaceId: ws, sessionId: session.id, partNumber, etag })));
      t.equal(await report(workspaceId, 2, "etag-2"), true);
      t.equal(await report(workspaceId, 2, "etag-2b"), true, "the client sent the part again");
      t.equal(await report(workspaceId, 4, "etag-4"), false, "no part 4 in a session of 3 parts");
      t.equal(await report(other.workspaceId, 1, "etag-1"), false, "not through another workspace");
      const etags = (await run(uploads((r) => r.parts(workspaceId, session.id)))).map((p) => [p.partNumber, p.etag]);
      t.same(etags, [[1, null], [2, "etag-2b"], [3, null]]);
    },
  },
];

/** Runs the UploadsRepository kit. */
export const uploadsRepositorySuite = (options: SuiteOptions<UploadsRepositoryKitPorts>): Promise<unknown> => runCases(options, uploadsRepositoryCases);
