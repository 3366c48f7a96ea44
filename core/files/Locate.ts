/**
 * Routes that name only a node, an upload or a version (`/v1/nodes/:id`, `/v1/uploads/:id`)
 * start by finding the workspace it belongs to (ids are unique across workspaces); every use
 * case then checks the caller's membership and access in that workspace, so an id of another
 * workspace, or an unknown one, is 404 either way.
 */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";

const found = (resource: string) => (workspaceId: string | null) =>
  workspaceId === null ? Effect.fail(new NotFound({ resource })) : Effect.succeed(workspaceId);

/** The workspace of a node, or NotFound. */
export const nodeWorkspace = (nodeId: string): Effect.Effect<string, NotFound, NodesRepository> =>
  Effect.flatMap(NodesRepository, (nodes) => nodes.workspaceOf(nodeId)).pipe(Effect.flatMap(found("node")));

/** The workspace of an upload session, or NotFound. */
export const uploadWorkspace = (uploadId: string): Effect.Effect<string, NotFound, UploadsRepository> =>
  Effect.flatMap(UploadsRepository, (uploads) => uploads.workspaceOf(uploadId)).pipe(Effect.flatMap(found("upload")));

/** The workspace of a file version, or NotFound. */
export const versionWorkspace = (versionId: string): Effect.Effect<string, NotFound, VersionsRepository> =>
  Effect.flatMap(VersionsRepository, (versions) => versions.workspaceOf(versionId)).pipe(Effect.flatMap(found("version")));

/** The workspace of an archive extraction, or NotFound. */
export const extractionWorkspace = (extractionId: string): Effect.Effect<string, NotFound, ExtractionsRepository> =>
  Effect.flatMap(ExtractionsRepository, (extractions) => extractions.workspaceOf(extractionId)).pipe(Effect.flatMap(found("extraction")));
