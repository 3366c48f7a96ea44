/**
 * The durable jobs of the project module, each declared with `defineJob` next to its use case
 * (docs/architecture.md, Events and background work): the payload is decoded before it runs.
 */
import { attachmentScanJob } from "./AttachmentScan.js";
import { attachmentThumbnailJob } from "./AttachmentThumbnails.js";
import { workspaceExportJob } from "./ExportJob.js";
import { invitationEmailJob } from "./InvitationEmail.js";
import { mentionEmailJob } from "./MentionNotifications.js";
import { rankRebalanceJob } from "./RankRebalance.js";
import { defaultTrashPurgePolicy, makeTrashPurgeJob, type TrashPurgePolicy } from "./TrashPurge.js";

/** Every job of the project module, for the host's worker, the trash purge run with `trashPurge`. */
export const makeProjectsJobs = (trashPurge: TrashPurgePolicy = defaultTrashPurgePolicy) =>
  [attachmentScanJob, attachmentThumbnailJob, workspaceExportJob, mentionEmailJob, invitationEmailJob, rankRebalanceJob, makeTrashPurgeJob(trashPurge)] as const;

/** Every job of the project module with the default trash purge policy. */
export const projectsJobs = makeProjectsJobs();
