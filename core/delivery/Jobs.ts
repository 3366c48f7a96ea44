/** The delivery module's durable jobs (docs/adding-a-module.md, 2. Core), each defined next to its use case. */
import { acceptanceDeadlineJob } from "./AcceptanceDeadline.js";
import { offerExpiryJob } from "./Dispatch.js";
import { paymentCaptureJob, paymentVoidJob } from "./OrderPayments.js";

export const deliveryJobs = [acceptanceDeadlineJob, offerExpiryJob, paymentVoidJob, paymentCaptureJob] as const;
