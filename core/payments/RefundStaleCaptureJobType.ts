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

/** The provider reference of the give-back: `exception:<id>/void` for a hold, `exception:<id>/refund` for a capture. */
export const refundStaleCaptureReference = settleIntentReference;
