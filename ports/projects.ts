/** Ports of the project module: its repositories. */
export * from "./projects/WorkspacesRepository.js";
export * from "./projects/ProjectsRepository.js";
export * from "./projects/TasksRepository.js";
export * from "./projects/CommentsRepository.js";
export * from "./projects/AttachmentsRepository.js";
export * from "./projects/ExportsRepository.js";
export * from "./projects/CustomFieldsRepository.js";
export * from "./projects/SavedViewsRepository.js";
export * from "./projects/DependenciesRepository.js";
export * from "./projects/CommentEdits.js";
export * from "./projects/TaskRanks.js";
export * from "./projects/NotificationsRepository.js";
export * from "./projects/NotificationsAddressBook.js";
export * from "./projects/SearchIndex.js";
export * from "./projects/ShareLinksRepository.js";
