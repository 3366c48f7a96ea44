/**
 * The project module's SQL adapter: its repositories and migrations (`migrate(db, [projectsModule])`
 * creates the project tables).
 */

export * from "./projectsMigrations.js";
export * from "./SqlWorkspacesRepository.js";
export * from "./SqlProjectsRepository.js";
export * from "./SqlTasksRepository.js";
export * from "./SqlCommentsRepository.js";
export * from "./projectsMigration0002.js";
export * from "./SqlNotificationsRepository.js";
export * from "./SqlSearchIndex.js";
export * from "./SqlTaskRanksRebalance.js";
export * from "./SqlCommentEdits.js";
export * from "./projectsMigration0004Attachments.js";
export * from "./projectsMigration0005CustomFieldsViewsDependencies.js";
export * from "./SqlAttachmentsRepository.js";
export * from "./SqlExportsRepository.js";
export * from "./SqlCustomFieldsRepository.js";
export * from "./SqlSavedViewsRepository.js";
export * from "./SqlDependenciesRepository.js";
export * from "./projectsMigration0006ShareLinks.js";
export * from "./SqlShareLinksRepository.js";

