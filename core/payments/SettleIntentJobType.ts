/**
 * The job that settles the payment intent of a reconciliation exception resolved with
 * `settle_intent`: scheduled in the resolving transaction under key `exception:<id>`, handled in
 * SettleIntent.ts (the provider is called after commit, never inside the resolution).
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

export const settleIntentJobType = defineJobType({
  kind: "payments.settle_intent",
  payload: Schema.Struct({ exception_id: Schema.String }),
});

/** The job's key: one settlement per exception. */
export const settleIntentJobKey = (exceptionId: string): string => `exception:${exceptionId}`;

/** How money the provider holds or took is given back: a hold is voided, a capture refunded. */
export type GiveBack = "void" | "refund";

/** The provider references of an exception's void and refund: one each per exception. */
export const settleIntentReference = (exceptionId: string, operation: GiveBack): string => `exception:${exceptionId}/${operation}`;
