/** Every route of the project module. */
import { activityRoutes } from "./ActivityRoutes.js";
import { commentRoutes } from "./CommentRoutes.js";
import { projectRoutes } from "./ProjectRoutes.js";
import { taskRoutes } from "./TaskRoutes.js";
import { workspaceRoutes } from "./WorkspaceRoutes.js";

export * from "./ProjectSchemas.js";
export * from "./WorkspaceRoutes.js";
export * from "./ProjectRoutes.js";
export * from "./TaskRoutes.js";
export * from "./CommentRoutes.js";
export * from "./ActivityRoutes.js";

/** The project module's routes, in documentation order. */
export const projectModuleRoutes = [...workspaceRoutes, ...projectRoutes, ...taskRoutes, ...commentRoutes, ...activityRoutes];
