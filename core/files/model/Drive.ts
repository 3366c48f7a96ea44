/**
 * The drive of one workspace: its root folder, the quota counter (used + reserved never pass the
 * quota, both never negative — also a database CHECK), the change sequence that orders the sync
 * feed, the ACL epoch that revocations bump, and the sequence below which changes were pruned.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { NodeId, WorkspaceId } from "./Ids.js";

/** The drive record. */
export const Drive = Schema.Struct({
  workspaceId: WorkspaceId,
  rootNodeId: NodeId,
  quotaBytes: Schema.Int,
  usedBytes: Schema.Int,
  reservedBytes: Schema.Int,
  changeSeq: Schema.Int,
  prunedThroughSeq: Schema.Int,
  aclEpoch: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Drive = typeof Drive.Type;

/** What `GET /v1/workspaces/:id/drive` answers: `{root_node_id, quota_bytes, used_bytes, reserved_bytes}`. */
export const DriveView = Schema.Struct(Struct.pick(Drive.fields, "rootNodeId", "quotaBytes", "usedBytes", "reservedBytes"));
export type DriveView = typeof DriveView.Type;
export const DriveWire = wireShape(DriveView);

/** The drive's counter as the kernel's QuotaReservation sees it, holding one open reservation when given. */
export const quotaStateOf = (drive: Drive, open?: { readonly id: string; readonly bytes: number }) => ({
  limit: drive.quotaBytes,
  used: drive.usedBytes,
  reserved: drive.reservedBytes,
  reservations: new Map(open === undefined ? [] : [[open.id, { bytes: open.bytes, state: "reserved" as const }]]),
});
