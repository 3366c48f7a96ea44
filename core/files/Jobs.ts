/** The file storage module's durable jobs (hosts register them with the worker). */
import { uploadExpiryJob } from "./ExpireUpload.js";
import { quotaSweepJob } from "./QuotaSweep.js";
import { quotaReconciliationJob } from "./ReconcileQuota.js";
import { scanVersionJob } from "./ScanVersion.js";

export const filesJobs = [scanVersionJob, uploadExpiryJob, quotaReconciliationJob, quotaSweepJob] as const;
