/** The file storage module's SQL adapter: repositories and migrations (`filesMigrations`). */
export * from "./migrations/index.js";
export * from "./SqlAuditExportsRepository.js";
export * from "./SqlChangesRepository.js";
export * from "./SqlDriveRepository.js";
export * from "./SqlExtractionsRepository.js";
export * from "./SqlNodesRepository.js";
export * from "./SqlNodeSearchIndex.js";
export * from "./SqlUploadsRepository.js";
export * from "./SqlVersionsRepository.js";
export * from "./SqlShareLinksRepository.js";
export * from "./SqlThumbnailsRepository.js";
export * from "./SqlTrashPurgeRepository.js";
export * from "./SqlFilesAudit.js";
export * from "./SqlProjectsWorkspaceDirectory.js";
