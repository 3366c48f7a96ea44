/**
 * The contract kits of the file storage module's repository ports (exported from the package's
 * `testkit` subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and
 * exports its cases (`xxxCases`). `workspaceDirectorySuite` also needs a `WorkspaceDirectorySeed`
 * over the host's membership store, so it is not in `filesKits`.
 */
export * from "./AuditExportsRepositoryKit.js";
export * from "./ChangesRepositoryKit.js";
export * from "./DriveRepositoryKit.js";
export * from "./ExtractionsRepositoryKit.js";
export * from "./FilesAuditKit.js";
export * from "./fixtures.js";
export * from "./NodesRepositoryKit.js";
export * from "./NodeSearchIndexKit.js";
export * from "./ShareLinksRepositoryKit.js";
export * from "./ThumbnailsRepositoryKit.js";
export * from "./TrashPurgeRepositoryKit.js";
export * from "./UploadsRepositoryKit.js";
export * from "./VersionsRepositoryKit.js";
export * from "./WorkspaceDirectoryKit.js";

import type { SuiteOptions } from "../Kit.js";
import { auditExportsRepositorySuite, type AuditExportsRepositoryKitPorts } from "./AuditExportsRepositoryKit.js";
import { changesRepositorySuite, type ChangesRepositoryKitPorts } from "./ChangesRepositoryKit.js";
import { driveRepositorySuite, type DriveRepositoryKitPorts } from "./DriveRepositoryKit.js";
import { extractionsRepositorySuite, type ExtractionsRepositoryKitPorts } from "./ExtractionsRepositoryKit.js";
import { filesAuditSuite, type FilesAuditKitPorts } from "./FilesAuditKit.js";
import { nodesRepositorySuite, type NodesRepositoryKitPorts } from "./NodesRepositoryKit.js";
import { nodeSearchIndexSuite, type NodeSearchIndexKitPorts } from "./NodeSearchIndexKit.js";
import { shareLinksRepositorySuite, type ShareLinksRepositoryKitPorts } from "./ShareLinksRepositoryKit.js";
import { thumbnailsRepositorySuite, type ThumbnailsRepositoryKitPorts } from "./ThumbnailsRepositoryKit.js";
import { trashPurgeRepositorySuite, type TrashPurgeRepositoryKitPorts } from "./TrashPurgeRepositoryKit.js";
import { uploadsRepositorySuite, type UploadsRepositoryKitPorts } from "./UploadsRepositoryKit.js";
import { versionsRepositorySuite, type VersionsRepositoryKitPorts } from "./VersionsRepositoryKit.js";

/** Every repository port of the file storage module the kits cover (with Transactions). */
export type FilesKitPorts = DriveRepositoryKitPorts | NodesRepositoryKitPorts | VersionsRepositoryKitPorts | UploadsRepositoryKitPorts | ChangesRepositoryKitPorts | ShareLinksRepositoryKitPorts | TrashPurgeRepositoryKitPorts | ExtractionsRepositoryKitPorts | ThumbnailsRepositoryKitPorts | AuditExportsRepositoryKitPorts | FilesAuditKitPorts | NodeSearchIndexKitPorts;

/** Every files kit by port name, for an adapter that provides all of {@link FilesKitPorts}. */
export const filesKits: Readonly<Record<string, (options: SuiteOptions<FilesKitPorts>) => Promise<unknown>>> = {
  DriveRepository: driveRepositorySuite,
  NodesRepository: nodesRepositorySuite,
  VersionsRepository: versionsRepositorySuite,
  UploadsRepository: uploadsRepositorySuite,
  ChangesRepository: changesRepositorySuite,
  ShareLinksRepository: shareLinksRepositorySuite,
  TrashPurgeRepository: trashPurgeRepositorySuite,
  ExtractionsRepository: extractionsRepositorySuite,
  ThumbnailsRepository: thumbnailsRepositorySuite,
  AuditExportsRepository: auditExportsRepositorySuite,
  FilesAudit: filesAuditSuite,
  NodeSearchIndex: nodeSearchIndexSuite,
};
