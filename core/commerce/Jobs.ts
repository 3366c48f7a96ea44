/** The e-commerce module's durable jobs (each defined next to its use case). */
import { cancellationJob } from "./CompleteCancellation.js";
import { carrierPollJob } from "./CarrierTracking.js";
import { captureJob } from "./Fulfillment.js";
import { paymentResolutionJob, strandedPaymentJob } from "./OrderPayments.js";
import { reservationExpiryJob } from "./ReservationExpiry.js";
import { retentionJob } from "./Retention.js";
import { returnRefundJob } from "./ReturnRefunds.js";
import { customerMailJob } from "./Notifications.js";

export const commerceJobs = [reservationExpiryJob, paymentResolutionJob, strandedPaymentJob, cancellationJob, captureJob, retentionJob, carrierPollJob, returnRefundJob, customerMailJob] as const;
