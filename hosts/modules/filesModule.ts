/**
 * The file storage module as a host sees it: the Layer of its ports (`FilesPorts`: the
 * repositories over the host's database, the workspace directory and the settings), routes,
 * migrations, jobs (scan, upload expiry, quota reconciliation and its daily sweep, trash purge,
 * change retention) and each member's drive channel `drive:<workspace id>:<user id>` (its own
 * realtime consumer: routing reads who can see the change). Bytes go through the host's shared ObjectStore and Scanner (blobStorageModule.ts),
 * never through this module's routes.
 *
 * The workspace is the tenant. By default the module reads membership from the project module's
 * workspaces (SqlProjectsWorkspaceDirectory: the reference server composes both); a host that
 * embeds file storage alone passes its own `directory`.
 */
import { Effect, Layer } from "effect";
import { filesRoutes } from "../../adapters/koa/files/index.js";
import { sqlPort } from "../../adapters/sql/DatabaseLayer.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { makeSqlChangesRepository } from "../../adapters/sql/files/SqlChangesRepository.js";
import { makeSqlDriveRepository } from "../../adapters/sql/files/SqlDriveRepository.js";
import { makeSqlFilesAudit } from "../../adapters/sql/files/SqlFilesAudit.js";
import { makeSqlNodesRepository } from "../../adapters/sql/files/SqlNodesRepository.js";
import { makeSqlNodeSearchIndex, type SqlNodeSearchIndexOptions } from "../../adapters/sql/files/SqlNodeSearchIndex.js";
import { makeSqlProjectsWorkspaceDirectory } from "../../adapters/sql/files/SqlProjectsWorkspaceDirectory.js";
import { makeSqlShareLinksRepository } from "../../adapters/sql/files/SqlShareLinksRepository.js";
import { makeSqlTrashPurgeRepository } from "../../adapters/sql/files/SqlTrashPurgeRepository.js";
import { makeSqlExtractionsRepository } from "../../adapters/sql/files/SqlExtractionsRepository.js";
import { makeSqlThumbnailsRepository } from "../../adapters/sql/files/SqlThumbnailsRepository.js";
import { makeSqlAuditExportsRepository } from "../../adapters/sql/files/SqlAuditExportsRepository.js";
import { makeYauzlArchiveReader } from "../../adapters/archives/YauzlArchiveReader.js";
import { makeSqlUploadsRepository } from "../../adapters/sql/files/SqlUploadsRepository.js";
import { makeSqlVersionsRepository } from "../../adapters/sql/files/SqlVersionsRepository.js";
import { driveChannelKind, driveChannelsConsumerName, driveChannelsFor, isDriveChanged, maySubscribeToDrive } from "../../core/files/ChannelAccess.js";
import { checkGrantCondition } from "../../core/files/CheckGrantCondition.js";
import { filesGrantIssuer } from "../../core/files/GrantConditions.js";
import { filesJobs } from "../../core/files/Jobs.js";
import { memberAdditionConsumer, type MemberAdditionOf } from "../../core/files/MemberAddition.js";
import { memberRemovalConsumer, type MemberRemovalOf } from "../../core/files/MemberRemoval.js";
import { searchIndexingConsumer } from "../../core/files/SearchIndexing.js";
import { scheduleChangeRetention } from "../../core/files/ChangeRetention.js";
import { scheduleQuotaSweep } from "../../core/files/QuotaSweep.js";
import { scheduleSearchBackfill } from "../../core/files/SearchBackfill.js";
import { scheduleTrashPurge } from "../../core/files/TrashPurgeSweep.js";
import { scheduleOrphanMultipartCleanup } from "../../core/files/OrphanMultipartCleanup.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { FilesSettings, defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { ShareLinksRepository } from "../../ports/files/ShareLinksRepository.js";
import { TrashPurgeRepository } from "../../ports/files/TrashPurgeRepository.js";
import { ArchiveReader } from "../../ports/files/ArchiveReader.js";
import { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import { ThumbnailsRepository } from "../../ports/files/ThumbnailsRepository.js";
import { AuditExportsRepository } from "../../ports/files/AuditExportsRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import type { ModuleChannelAuthorizer, ModuleDefinition } from "../ModuleDefinition.js";
import type { HostServices } from "../PortBindings.js";
import { projectWorkspaceAdditionOf } from "./filesMemberAdditions.js";
import { projectWorkspaceRemovalOf } from "./filesMemberRemovals.js";

/** The ports the file storage module's Layer provides. */
export type FilesPorts =
  | DriveRepository
  | NodesRepository
  | NodeSearchIndex
  | VersionsRepository
  | UploadsRepository
  | ChangesRepository
  | ShareLinksRepository
  | TrashPurgeRepository
  | ExtractionsRepository
  | ArchiveReader
  | ThumbnailsRepository
  | AuditExportsRepository
  | FilesAudit
  | WorkspaceDirectory
  | FilesSettings;

/** Options of the file storage module. */
export interface FilesModuleOptions {
  /**
   * Limits and operators; `defaultFilesSettings` for what is omitted. The reference server sets
   * `defaultQuotaBytes` from FILES_DEFAULT_QUOTA_BYTES, `securityOperators` from
   * FILES_SECURITY_OPERATORS, `trashRetentionDays` from FILES_TRASH_RETENTION_DAYS,
   * `changeRetentionDays` from FILES_CHANGE_RETENTION_DAYS and `auditExportRetentionMs` from
   * FILES_AUDIT_EXPORT_RETENTION_DAYS.
   */
  readonly settings?: Partial<FilesSettings>;
  /** Workspace membership; the project module's workspaces (same database) when omitted. */
  readonly directory?: WorkspaceDirectory;
  /**
   * How the membership source announces a removal (an outbox event), so the removed member's sync
   * feed says the drive left their view; the project module's WorkspaceMembershipRevoked when
   * `directory` is omitted, none otherwise.
   */
  readonly memberRemovals?: MemberRemovalOf;
  /**
   * How the membership source announces an addition (an outbox event), so a member invited back
   * reads in their feed that the drive entered their view again; the project module's
   * WorkspaceMembershipGranted when `directory` is omitted, none otherwise.
   */
  readonly memberAdditions?: MemberAdditionOf;
  /** The search index's options (the most matches one search examines); its defaults when omitted. */
  readonly searchIndex?: SqlNodeSearchIndexOptions;
}

/** Authorizes `drive:<workspace id>:<user id>` subscriptions: the user's own, while a current member. */
export const driveChannelAuthorizer: ModuleChannelAuthorizer<WorkspaceDirectory> = {
  kind: driveChannelKind,
  authorize: maySubscribeToDrive,
};

/** The file storage module's ports over the host's database. */
export const filesLayer = (options: FilesModuleOptions = {}): Layer.Layer<FilesPorts, never, SqlDatabase> =>
  Layer.mergeAll(
    sqlPort(DriveRepository, makeSqlDriveRepository),
    sqlPort(NodesRepository, makeSqlNodesRepository),
    sqlPort(NodeSearchIndex, (db) => makeSqlNodeSearchIndex(db, options.searchIndex)),
    sqlPort(VersionsRepository, makeSqlVersionsRepository),
    sqlPort(UploadsRepository, makeSqlUploadsRepository),
    sqlPort(ChangesRepository, makeSqlChangesRepository),
    sqlPort(ShareLinksRepository, makeSqlShareLinksRepository),
    sqlPort(TrashPurgeRepository, makeSqlTrashPurgeRepository),
    sqlPort(ExtractionsRepository, makeSqlExtractionsRepository),
    sqlPort(ThumbnailsRepository, makeSqlThumbnailsRepository),
    sqlPort(AuditExportsRepository, makeSqlAuditExportsRepository),
    // Zip extraction reads archives with yauzl (bounded by FilesSettings.extractMaxArchiveBytes).
    Layer.succeed(ArchiveReader, makeYauzlArchiveReader()),
    sqlPort(FilesAudit, makeSqlFilesAudit),
    options.directory === undefined ? sqlPort(WorkspaceDirectory, makeSqlProjectsWorkspaceDirectory) : Layer.succeed(WorkspaceDirectory, options.directory),
    Layer.sync(FilesSettings, () => ({ ...defaultFilesSettings, ...options.settings })),
  );

/**
 * The module's outbox consumers: search indexing, the member removal's left-view change when
 * removals are announced, and the re-invited member's entered-view change when additions are.
 */
const filesConsumers = (options: FilesModuleOptions) => {
  const removals = options.memberRemovals ?? (options.directory === undefined ? projectWorkspaceRemovalOf : undefined);
  const additions = options.memberAdditions ?? (options.directory === undefined ? projectWorkspaceAdditionOf : undefined);
  return [
    searchIndexingConsumer,
    // Drive announcements go to each reader of the changed node: routing reads the tree.
    realtimeConsumer({ name: driveChannelsConsumerName, handles: isDriveChanged, channelsForEffect: driveChannelsFor }),
    ...(removals === undefined ? [] : [memberRemovalConsumer(removals)]),
    ...(additions === undefined ? [] : [memberAdditionConsumer(additions)]),
  ];
};

/** Builds the file storage module's definition. */
export const makeFilesModule = (options: FilesModuleOptions = {}): ModuleDefinition<FilesPorts, HostServices<FilesPorts>> => ({
  name: "files",
  layer: filesLayer(options),
  routes: filesRoutes,
  migrations: filesMigrations,
  consumers: filesConsumers(options),
  // Scanning, thumbnails, extraction and the purge use the host's ObjectStore, Scanner and Thumbnailer.
  jobHandlers: filesJobs,
  // Daily: the quota sweep (03:00 UTC) schedules a reconciliation per drive, the trash purge
  // (04:00) purges trashed subtrees past retention unless held (and expired audit exports), the
  // change retention (04:30) prunes the change log, the orphan multipart cleanup (05:00) aborts
  // store uploads no session holds.
  scheduleRecurring: (nowMs) =>
    Effect.all([scheduleQuotaSweep(nowMs), scheduleTrashPurge(nowMs), scheduleChangeRetention(nowMs), scheduleSearchBackfill(nowMs), scheduleOrphanMultipartCleanup(nowMs)], { discard: true }),
  channelAuthorizers: [driveChannelAuthorizer],
  // The local store serves a download or part grant only while what it was issued under holds.
  grantChecks: [{ issuer: filesGrantIssuer, holds: checkGrantCondition }],
});

/** The file storage module with default settings, over the project module's workspaces. */
export const filesModule = makeFilesModule();
