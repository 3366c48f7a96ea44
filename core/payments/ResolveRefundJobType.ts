/**
 * The refund resolution job's kind and payload: scheduled with every refund in the transaction
 * that records it pending, cancelled once the provider's answer is applied, and scheduled again by
 * the job itself while the answer stays unknown inside the ambiguity window; handled in
 * ResolveRefund.ts.
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

/** The job that settles a refund still pending: the same request again, under the refund's reference. */
export const resolveRefundJobType = defineJobType({
  kind: "payments.resolve_refund",
  payload: Schema.Struct({ refund_id: Schema.String }),
});

/** How long after a refund is requested its resolution job first looks at it. */
export const resolveRefundDelayMs = 30_000;
