/**
 * The project module's SQL adapter: its repositories and migrations (`migrate(db, [projectsModule])`
 * creates the project tables).
 */

export * from "./migrations/index.js";
export * from "./SqlWorkspacesRepository.js";
export * from "./SqlProjectsRepository.js";
export * from "./SqlTasksRepository.js";
export * from "./SqlCommentsRepository.js";
export * from "./migrations/0002_notifications_comment_edits_search.js";
export * from "./SqlNotificationsRepository.js";
export * from "./SqlSearchIndex.js";
export * from "./SqlTaskRanksRebalance.js";
export * from "./SqlCommentEdits.js";
export * from "./migrations/0004_attachments_and_exports.js";
export * from "./migrations/0005_custom_fields_views_dependencies.js";
export * from "./SqlAttachmentsRepository.js";
export * from "./SqlExportsRepository.js";
export * from "./SqlCustomFieldsRepository.js";
export * from "./SqlSavedViewsRepository.js";
export * from "./SqlDependenciesRepository.js";
export * from "./migrations/0006_share_links.js";
export * from "./SqlShareLinksRepository.js";

