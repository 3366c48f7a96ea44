/**
 * The provider status reconciliation job's kind and payload: scheduled by confirmation when the
 * provider's answer is lost, and again by the job itself inside the ambiguity window; handled in
 * ReconciliationWindow.ts.
 */
import { Schema } from "effect";
import { defineJobType } from "../kernel/JobDefinition.js";

/** The job that asks the provider, by our reference, what became of an unknown attempt. */
export const reconcileIntentJobType = defineJobType({
  kind: "payments.reconcile_intent",
  payload: Schema.Struct({ intent_id: Schema.String }),
});

/** Its kind, for listings and tests. */
export const reconcileIntentJobKind = reconcileIntentJobType.kind;
