/** Every route of the file storage module. */
import { auditExportRoutes } from "./AuditExportRoutes.js";
import { changeRoutes } from "./ChangeRoutes.js";
import { driveRoutes } from "./DriveRoutes.js";
import { extractionRoutes } from "./ExtractionRoutes.js";
import { thumbnailRoutes } from "./ThumbnailRoutes.js";
import { nodeRoutes } from "./NodeRoutes.js";
import { permissionRoutes } from "./PermissionRoutes.js";
import { driveSearchRoutes } from "./SearchRoutes.js";
import { securityRoutes } from "./SecurityRoutes.js";
import { fileShareLinkRoutes } from "./ShareLinkRoutes.js";
import { uploadRoutes } from "./UploadRoutes.js";
import { versionRoutes } from "./VersionRoutes.js";

export * from "./FilesSchemas.js";
export * from "./DriveRoutes.js";
export * from "./NodeRoutes.js";
export * from "./UploadRoutes.js";
export * from "./VersionRoutes.js";
export * from "./PermissionRoutes.js";
export * from "./ShareLinkRoutes.js";
export * from "./ChangeRoutes.js";
export * from "./SearchRoutes.js";
export * from "./SecurityRoutes.js";
export * from "./ExtractionRoutes.js";
export * from "./ThumbnailRoutes.js";
export * from "./AuditExportRoutes.js";

/** The file storage module's routes, in documentation order. */
export const filesRoutes = [
  ...driveRoutes,
  ...nodeRoutes,
  ...uploadRoutes,
  ...versionRoutes,
  ...permissionRoutes,
  ...fileShareLinkRoutes,
  ...changeRoutes,
  ...driveSearchRoutes,
  ...securityRoutes,
  ...extractionRoutes,
  ...thumbnailRoutes,
  ...auditExportRoutes,
];
