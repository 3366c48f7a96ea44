/**
 * The durable jobs of the project module, each declared with `defineJob` next to its use case
 * (docs/architecture.md, Events and background work): the payload is decoded before it runs.
 */
import { attachmentScanJob } from "./AttachmentScan.js";
import { attachmentThumbnailJob } from "./AttachmentThumbnails.js";
import { workspaceExportJob } from "./ExportJob.js";
import { mentionEmailJob } from "./MentionNotifications.js";
import { rankRebalanceJob } from "./RankRebalance.js";
import { trashPurgeJob } from "./TrashPurge.js";

/** Every job of the project module, for the host's worker. */
export const projectsJobs = [
  attachmentScanJob,
  attachmentThumbnailJob,
  workspaceExportJob,
  mentionEmailJob,
  rankRebalanceJob,
  trashPurgeJob,
] as const;
