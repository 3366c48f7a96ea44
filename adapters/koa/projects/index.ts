/** Every route of the project module. */
import { activityRoutes } from "./ActivityRoutes.js";
import { attachmentRoutes } from "./AttachmentRoutes.js";
import { commentEditRoutes } from "./CommentEditRoutes.js";
import { commentRoutes } from "./CommentRoutes.js";
import { customFieldRoutes } from "./CustomFieldRoutes.js";
import { dependencyRoutes } from "./DependencyRoutes.js";
import { exportRoutes } from "./ExportRoutes.js";
import { invitationRoutes } from "./InvitationRoutes.js";
import { notificationRoutes } from "./NotificationRoutes.js";
import { searchRoutes } from "./SearchRoutes.js";
import { taskMoveRoutes } from "./TaskMoveRoutes.js";
import { projectRoutes } from "./ProjectRoutes.js";
import { savedViewRoutes } from "./SavedViewRoutes.js";
import { shareLinkRoutes } from "./ShareLinkRoutes.js";
import { taskRoutes } from "./TaskRoutes.js";
import { workspaceRoutes } from "./WorkspaceRoutes.js";

export * from "./ProjectSchemas.js";
export * from "./WorkspaceRoutes.js";
export * from "./InvitationRoutes.js";
export * from "./ProjectRoutes.js";
export * from "./TaskRoutes.js";
export * from "./CommentRoutes.js";
export * from "./ActivityRoutes.js";
export * from "./AttachmentRoutes.js";
export * from "./ExportRoutes.js";
export * from "./CustomFieldRoutes.js";
export * from "./SavedViewRoutes.js";
export * from "./DependencyRoutes.js";
export * from "./TaskMoveRoutes.js";
export * from "./CommentEditRoutes.js";
export * from "./NotificationRoutes.js";
export * from "./SearchRoutes.js";
export * from "./ShareLinkRoutes.js";

/** The project module's routes, in documentation order. */
export const projectsRoutes = [
  ...workspaceRoutes,
  ...invitationRoutes,
  ...projectRoutes,
  ...shareLinkRoutes,
  ...taskRoutes,
  ...taskMoveRoutes,
  ...commentRoutes,
  ...commentEditRoutes,
  ...attachmentRoutes,
  ...customFieldRoutes,
  ...dependencyRoutes,
  ...savedViewRoutes,
  ...activityRoutes,
  ...notificationRoutes,
  ...searchRoutes,
  ...exportRoutes,
];

/** The module's routes under their former name (hosts/modules/projectsModule.ts imports it). */
export const projectModuleRoutes = projectsRoutes;
