/**
 * Contract kit for DriveRepository (file storage's per-workspace counter row): a drive is
 * created once with its root folder and found only under its workspace (a racing second create
 * never replaces it); the quota counter moves
 * by `adjust` and the store refuses a breach (used + reserved above the quota, or below zero)
 * instead of storing it; change sequence numbers are 1, 2, 3, ... per workspace; `setQuota`
 * reports a missing drive; each revocation advances the ACL epoch by one; a new drive uses
 * nothing; the workspaces with a drive are paged in id order. Any adapter a host binds (another database, a managed store) must pass it.
 */
import { Effect, Exit } from "effect";
import type { Drive } from "../../../core/files/model/Drive.js";
import { NodeId, WorkspaceId } from "../../../core/files/model/Ids.js";
import { newNode } from "../../../core/files/model/Node.js";
import { Transactions } from "../../../ports/Transactions.js";
import { DriveRepository } from "../../../ports/files/DriveRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";

/** The ports this kit needs: the repository, and transactions for its locking calls. */
export type DriveRepositoryKitPorts = DriveRepository | Transactions;

const drives = <A>(f: (r: DriveRepository) => Effect.Effect<A>) => Effect.flatMap(DriveRepository, f);
const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactions, (tx) => tx.run(effect));

/** A UUID-shaped id of kind `kind` (a hex digit) and number `n`. */
export const driveKitId = (kind: number, n: number): string => `0000000${kind}-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** Drive `n` (workspace and root ids derived from `n`) with `quotaBytes`. */
export const driveRecord = (n: number, quotaBytes = 1_000): { readonly drive: Drive; readonly root: ReturnType<typeof newNode> } => {
  const workspaceId = WorkspaceId.make(driveKitId(1, n));
  const rootNodeId = NodeId.make(driveKitId(2, n));
  return {
    drive: {
      workspaceId,
      rootNodeId,
      quotaBytes,
      usedBytes: 0,
      reservedBytes: 0,
      changeSeq: 0,
      prunedThroughSeq: 0,
      aclEpoch: 1,
      createdAt: at(n),
      updatedAt: at(n),
    },
    root: newNode({ id: rootNodeId, workspaceId, parentId: null, name: "root", kind: "folder", createdBy: "kit-user", createdAt: at(n) }),
  };
};

const create = (n: number, quotaBytes?: number) => {
  const { drive, root } = driveRecord(n, quotaBytes);
  return Effect.as(inTransaction(drives((r) => r.create(drive, root))), drive);
};

/** The cases of the DriveRepository kit. */
export const driveRepositoryCases: ReadonlyArray<KitCase<DriveRepositoryKitPorts>> = [
  {
    name: "drives: a created drive is found under its workspace only; a second create for the workspace never replaces it",
    run: async (t, run) => {
      const drive = await run(create(1));
      t.same(await run(drives((r) => r.find(drive.workspaceId))), drive);
      t.equal(await run(drives((r) => r.find(driveKitId(1, 2)))), null, "another workspace has none");
      t.same(await run(inTransaction(drives((r) => r.lock(drive.workspaceId)))), drive, "lock answers the drive too");
      t.equal(await run(inTransaction(drives((r) => r.lock(driveKitId(1, 2))))), null);
      // Two first uses may race (ensureDrive): the second create may be refused or ignored, never stored.
      await run(Effect.exit(create(1, 7)));
      t.same(await run(drives((r) => r.find(drive.workspaceId))), drive, "one drive per workspace: a second create leaves the first as it was");
    },
  },
  {
    name: "drives: adjust moves the counters; a breach of the quota or a negative counter is refused, not stored",
    run: async (t, run) => {
      const drive = await run(create(1, 1_000));
      const counters = async (ws: string) => {
        const found = await run(drives((r) => r.find(ws)));
        return { usedBytes: found?.usedBytes, reservedBytes: found?.reservedBytes };
      };
      await run(inTransaction(drives((r) => r.adjust(drive.workspaceId, { reserved: 600, used: 0 }, at(10)))));
      await run(inTransaction(drives((r) => r.adjust(drive.workspaceId, { reserved: -600, used: 600 }, at(11)))));
      t.same(await counters(drive.workspaceId), { usedBytes: 600, reservedBytes: 0 });
      t.ok(Exit.isFailure(await run(Effect.exit(inTransaction(drives((r) => r.adjust(drive.workspaceId, { reserved: 401, used: 0 }, at(12))))))), "used + reserved above the quota");
      t.ok(Exit.isFailure(await run(Effect.exit(inTransaction(drives((r) => r.adjust(drive.workspaceId, { reserved: -1, used: 0 }, at(13))))))), "a negative reservation");
      t.same(await counters(drive.workspaceId), { usedBytes: 600, reservedBytes: 0 }, "nothing of the refused changes was stored");
      await run(inTransaction(drives((r) => r.adjust(drive.workspaceId, { reserved: 400, used: 0 }, at(14)))));
      t.same(await counters(drive.workspaceId), { usedBytes: 600, reservedBytes: 400 }, "exactly the quota is allowed");
    },
  },
  {
    name: "drives: change sequence numbers are 1, 2, 3, ... per workspace",
    run: async (t, run) => {
      const a = await run(create(1));
      const b = await run(create(2));
      const next = (ws: string) => run(inTransaction(drives((r) => r.nextChangeSeq(ws))));
      t.same([await next(a.workspaceId), await next(a.workspaceId), await next(b.workspaceId), await next(a.workspaceId)], [1, 2, 1, 3]);
      t.equal((await run(drives((r) => r.find(a.workspaceId))))?.changeSeq, 3, "the drive holds the last number");
    },
  },
  {
    name: "drives: pruneThrough advances the retention mark, never backwards and never past the change sequence, per workspace",
    run: async (t, run) => {
      const a = await run(create(1));
      const b = await run(create(2));
      for (let i = 0; i < 5; i += 1) await run(inTransaction(drives((r) => r.nextChangeSeq(a.workspaceId))));
      const prune = (ws: string, seq: number) => run(inTransaction(drives((r) => r.pruneThrough(ws, seq))));
      t.equal((await run(drives((r) => r.find(a.workspaceId))))?.prunedThroughSeq, 0, "a new drive has pruned nothing");
      t.equal(await prune(a.workspaceId, 3), 3, "advanced to 3");
      t.equal(await prune(a.workspaceId, 2), 3, "never backwards");
      t.equal(await prune(a.workspaceId, 9), 5, "never past the change sequence");
      t.equal((await run(drives((r) => r.find(a.workspaceId))))?.prunedThroughSeq, 5, "the mark stored is the one answered");
      t.equal((await run(drives((r) => r.find(b.workspaceId))))?.prunedThroughSeq, 0, "another workspace's mark is untouched");
      t.equal(await prune(b.workspaceId, 4), 0, "a drive without changes stays at 0");
    },
  },
  {
    name: "drives: setQuota changes the quota and reports a missing drive",
    run: async (t, run) => {
      const drive = await run(create(1));
      t.equal(await run(inTransaction(drives((r) => r.setQuota(drive.workspaceId, 5_000, at(20))))), true);
      t.equal((await run(drives((r) => r.find(drive.workspaceId))))?.quotaBytes, 5_000);
      t.equal(await run(inTransaction(drives((r) => r.setQuota(driveKitId(1, 9), 5_000, at(20))))), false);
    },
  },
  {
    name: "drives: each revocation advances the ACL epoch by one; a new drive uses nothing",
    run: async (t, run) => {
      const drive = await run(create(1));
      t.equal(await run(inTransaction(drives((r) => r.bumpAclEpoch(drive.workspaceId)))), 2);
      t.equal(await run(inTransaction(drives((r) => r.bumpAclEpoch(drive.workspaceId)))), 3);
      t.equal((await run(drives((r) => r.find(drive.workspaceId))))?.aclEpoch, 3);
      t.same(await run(drives((r) => r.usage(drive.workspaceId))), { versionBytes: 0, openReservedBytes: 0 });
    },
  },
  {
    name: "drives: the workspaces with a drive come in id order, in pages after a workspace",
    run: async (t, run) => {
      for (const n of [3, 1, 2]) await run(create(n));
      t.same(await run(drives((r) => r.workspaces(null, 2))), [driveKitId(1, 1), driveKitId(1, 2)]);
      t.same(await run(drives((r) => r.workspaces(driveKitId(1, 2), 2))), [driveKitId(1, 3)]);
      t.same(await run(drives((r) => r.workspaces(driveKitId(1, 3), 2))), []);
    },
  },
];

/** Runs the DriveRepository kit. */
export const driveRepositorySuite = (options: SuiteOptions<DriveRepositoryKitPorts>): Promise<unknown> => runCases(options, driveRepositoryCases);
