/**
 * How a file route finds who acts and where: the caller must be a user (`callerId`), and a route
 * that names only a node, an upload or a version acts in the workspace that object belongs to
 * (`nodeWorkspace`, ...). Access is then decided by the use case, in that workspace, so another
 * workspace's object answers 404 like an unknown one. No rule lives here: this only composes
 * core lookups.
 */
import { Effect } from "effect";
import { callerId } from "../../../core/files/Caller.js";
import { extractionWorkspace, nodeWorkspace, uploadWorkspace, versionWorkspace } from "../../../core/files/Locate.js";
import type { Principal } from "../../../ports/Principal.js";

/** Who acts, in which workspace. */
export interface Acting {
  readonly userId: string;
  readonly workspaceId: string;
}

/** Runs `f` as the calling user in the workspace of node `nodeId`. */
export const onNode = <A, E, R>(principal: Principal, nodeId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(callerId(principal), (userId) => Effect.flatMap(nodeWorkspace(nodeId), (workspaceId) => f({ userId, workspaceId })));

/** Runs `f` as the calling user in the workspace of upload session `uploadId`. */
export const onUpload = <A, E, R>(principal: Principal, uploadId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(callerId(principal), (userId) => Effect.flatMap(uploadWorkspace(uploadId), (workspaceId) => f({ userId, workspaceId })));

/** Runs `f` as the calling user in the workspace of version `versionId`. */
export const onVersion = <A, E, R>(principal: Principal, versionId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(callerId(principal), (userId) => Effect.flatMap(versionWorkspace(versionId), (workspaceId) => f({ userId, workspaceId })));

/** Runs `f` as the calling user in the workspace of archive extraction `extractionId`. */
export const onExtraction = <A, E, R>(principal: Principal, extractionId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(callerId(principal), (userId) => Effect.flatMap(extractionWorkspace(extractionId), (workspaceId) => f({ userId, workspaceId })));

/** Runs `f` as the calling user in workspace `workspaceId` (the route names it). */
export const inWorkspace = <A, E, R>(principal: Principal, workspaceId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(callerId(principal), (userId) => f({ userId, workspaceId }));
