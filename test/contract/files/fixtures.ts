/**
 * Records the files kits build on: every file storage row belongs to a workspace's drive
 * (composite tenant keys), so a kit first creates the drive (with its root folder) through
 * DriveRepository, then writes nodes under it through NodesRepository.
 */
import { Effect } from "effect";
import { NodeId, WorkspaceId } from "../../../core/files/model/Ids.js";
import { newNode, type Node, type NodeKind } from "../../../core/files/model/Node.js";
import { DriveRepository } from "../../../ports/files/DriveRepository.js";
import { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { Transactions } from "../../../ports/Transactions.js";
import { at } from "../Kit.js";
import { driveKitId, driveRecord } from "./DriveRepositoryKit.js";

/** What seeding a drive needs. */
export type DriveSeedPorts = DriveRepository | Transactions;

/** Runs `effect` in one transaction. */
export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Transactions> =>
  Effect.flatMap(Transactions, (tx) => tx.run(effect));

/** A drive seeded for a kit: its workspace and root folder. */
export interface SeededDrive {
  readonly workspaceId: WorkspaceId;
  readonly root: Node;
}

/** Creates drive `n` (workspace `driveKitId(1, n)`) with its root folder and `quotaBytes`. */
export const seedDrive = (n: number, quotaBytes = 1_000_000): Effect.Effect<SeededDrive, never, DriveSeedPorts> => {
  const { drive, root } = driveRecord(n, quotaBytes);
  return Effect.as(inTransaction(Effect.flatMap(DriveRepository, (r) => r.create(drive, root))), { workspaceId: drive.workspaceId, root });
};

/** Node id `n` (kind digit 3), unique across the kits' workspaces. */
export const nodeKitId = (n: number): NodeId => NodeId.make(driveKitId(3, n));

/** A new active node `n` named `name` under `parent` of `workspaceId`, created at `at(n)`. */
export const nodeRecord = (workspaceId: WorkspaceId, n: number, parentId: NodeId, name: string, kind: NodeKind = "folder"): Node =>
  newNode({ id: nodeKitId(n), workspaceId, parentId, name, kind, createdBy: "kit-user", createdAt: at(n) });

/** Inserts `node` and dies unless it was written (a fixture, not a case under test). */
export const seedNode = (node: Node): Effect.Effect<Node, never, NodesRepository> =>
  Effect.flatMap(NodesRepository, (r) => r.insert(node)).pipe(
    Effect.flatMap((write) => (write === "written" ? Effect.succeed(node) : Effect.dieMessage(`fixture node ${node.name}: ${write}`))),
  );

/** `WorkspaceId` of drive `n` (for a workspace that has no drive, a tenant a kit must never see). */
export const workspaceKitId = (n: number): WorkspaceId => WorkspaceId.make(driveKitId(1, n));
