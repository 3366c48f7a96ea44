/**
 * The payment module's durable jobs (docs/architecture.md, Events and background work), each
 * defined next to its use case; a host registers them all with its worker.
 */
import { exceptionReportJob } from "./ExceptionReport.js";
import { merchantWebhookDeliveryJob } from "./MerchantWebhookDelivery.js";
import { reconcileIntentJob } from "./ReconciliationWindow.js";
import { reconcileSettlementJob } from "./SettlementReconciliation.js";
import { refundStaleCaptureJob } from "./RefundStaleCapture.js";
import { resolveRefundJob } from "./ResolveRefund.js";
import { settleIntentJob } from "./SettleIntent.js";
import { unrecordedAnswersSweepJob } from "./UnrecordedAnswers.js";

export { exceptionReportJob, merchantWebhookDeliveryJob, reconcileIntentJob, reconcileSettlementJob, refundStaleCaptureJob, resolveRefundJob, settleIntentJob, unrecordedAnswersSweepJob };

/** Every job of the payment module. */
export const paymentsJobs = [merchantWebhookDeliveryJob, reconcileIntentJob, unrecordedAnswersSweepJob, resolveRefundJob, reconcileSettlementJob, exceptionReportJob, settleIntentJob, refundStaleCaptureJob] as const;
