/** The services the file storage core runs on (the host provides them as one Layer). */
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Scanner } from "../../ports/Scanner.js";
import type { Thumbnailer } from "../../ports/Thumbnailer.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import type { DriveRepository } from "../../ports/files/DriveRepository.js";
import type { FilesAudit } from "../../ports/files/FilesAudit.js";
import type { FilesSettings } from "../../ports/files/FilesSettings.js";
import type { NodesRepository } from "../../ports/files/NodesRepository.js";
import type { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import type { ArchiveReader } from "../../ports/files/ArchiveReader.js";
import type { AuditExportsRepository } from "../../ports/files/AuditExportsRepository.js";
import type { ExtractionsRepository } from "../../ports/files/ExtractionsRepository.js";
import type { ShareLinksRepository } from "../../ports/files/ShareLinksRepository.js";
import type { ThumbnailsRepository } from "../../ports/files/ThumbnailsRepository.js";
import type { TrashPurgeRepository } from "../../ports/files/TrashPurgeRepository.js";
import type { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import type { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import type { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";

/** Every service a file storage use case may need. */
export type FilesServices =
  | Transactions
  | Outbox
  | Ids
  | Jobs
  | ObjectStore
  | Scanner
  | Thumbnailer
  | DriveRepository
  | NodesRepository
  | NodeSearchIndex
  | VersionsRepository
  | UploadsRepository
  | ShareLinksRepository
  | TrashPurgeRepository
  | ExtractionsRepository
  | ArchiveReader
  | ThumbnailsRepository
  | AuditExportsRepository
  | FilesAudit
  | ChangesRepository
  | WorkspaceDirectory
  | FilesSettings;
