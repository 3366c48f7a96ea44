/** Every route of the project module. */
import { activityRoutes } from "./ActivityRoutes.js";
import { commentEditRoutes } from "./CommentEditRoutes.js";
import { commentRoutes } from "./CommentRoutes.js";
import { notificationRoutes } from "./NotificationRoutes.js";
import { searchRoutes } from "./SearchRoutes.js";
import { taskMoveRoutes } from "./TaskMoveRoutes.js";
import { projectRoutes } from "./ProjectRoutes.js";
import { taskRoutes } from "./TaskRoutes.js";
import { workspaceRoutes } from "./WorkspaceRoutes.js";

export * from "./ProjectSchemas.js";
export * from "./WorkspaceRoutes.js";
export * from "./ProjectRoutes.js";
export * from "./TaskRoutes.js";
export * from "./CommentRoutes.js";
export * from "./ActivityRoutes.js";
export * from "./TaskMoveRoutes.js";
export * from "./CommentEditRoutes.js";
export * from "./NotificationRoutes.js";
export * from "./SearchRoutes.js";

/** The project module's routes, in documentation order. */
export const projectModuleRoutes = [
  ...workspaceRoutes,
  ...projectRoutes,
  ...taskRoutes,
  ...taskMoveRoutes,
  ...commentRoutes,
  ...commentEditRoutes,
  ...activityRoutes,
  ...notificationRoutes,
  ...searchRoutes,
];
