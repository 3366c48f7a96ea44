/** Ports of the project module: its repositories. */
export * from "./projects/WorkspacesRepository.js";
export * from "./projects/ProjectsRepository.js";
export * from "./projects/TasksRepository.js";
export * from "./projects/CommentsRepository.js";
