/** The file storage module's durable jobs (hosts register them with the worker). */
import { uploadExpiryJob } from "./ExpireUpload.js";
import { quotaSweepJob } from "./QuotaSweep.js";
import { searchBackfillJob } from "./SearchBackfill.js";
import { objectRemovalJob } from "./ObjectRemoval.js";
import { quotaReconciliationJob } from "./ReconcileQuota.js";
import { auditExportJob } from "./AuditExportJob.js";
import { changeRetentionJob } from "./ChangeRetention.js";
import { extractionJob } from "./ExtractArchive.js";
import { thumbnailJob } from "./MakeThumbnail.js";
import { scanVersionJob } from "./ScanVersion.js";
import { searchTextJob } from "./SearchText.js";
import { trashPurgeJob } from "./TrashPurgeSweep.js";
import { orphanMultipartCleanupJob } from "./OrphanMultipartCleanup.js";
import { uploadStoreAbortJob } from "./UploadStoreAbort.js";

export const filesJobs = [scanVersionJob, uploadExpiryJob, quotaReconciliationJob, quotaSweepJob, trashPurgeJob, objectRemovalJob, changeRetentionJob, extractionJob, thumbnailJob, auditExportJob, searchTextJob, searchBackfillJob, orphanMultipartCleanupJob, uploadStoreAbortJob] as const;
