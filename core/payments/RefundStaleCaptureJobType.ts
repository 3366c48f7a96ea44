/**
 * The job that gives back a hold or capture the provider made under an earlier attempt of an intent
 * (an exception resolved with `refund_stale_capture`): scheduled in the resolving transaction under key
 * `exception:<id>`, handled in RefundStaleCapture.ts (the provider is called after commit).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";
import { settleIntentJobKey, settleIntentReference } from "./SettleIntentJobType.js";

export const refundStaleCaptureJobType = defineJobType({
  kind: "payments.refund_stale_capture",
  payload: Schema.Struct({ exception_id: Schema.String }),
});

/** The job's key: one give-back per exception (the settlement's key shape, another job kind). */
export const refundStaleCaptureJobKey = settleIntentJobKey;

/** The provider reference of the refund: `exception:<id>/refund`, one per exception. */
export const refundStaleCaptureReference = (exceptionId: string): string => settleIntentReference(exceptionId, "refund");

/** The provider reference of the void of a stale hold: `exception:<id>/void`, one per exception. */
export const staleVoidReference = (exceptionId: string): string => settleIntentReference(exceptionId, "void");
