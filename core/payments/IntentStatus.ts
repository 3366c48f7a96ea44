/**
 * The payment intent state machine as one explicit table of (status, trigger) -> next status
 * (docs/decisions.md, Payments (first slice)). Status names are the ones payment developers know. Anything not
 * in the table is an illegal transition and fails with a typed error, never a silent no-op.
 */
import { Effect } from "effect";
import type { IntentStatus } from "./model/PaymentIntent.js";
import { IllegalTransition } from "./Errors.js";


/** What can happen to an intent. */
export const intentTriggers = [
  "confirm", // a provider attempt starts (the intent waits in processing meanwhile)
  "retry_unknown", // an attempt whose outcome is unknown is sent again under the same reference
  "provider_authorized", // funds held, capture later (capture_method manual)
  "provider_captured", // funds captured (capture_method automatic)
  "provider_declined", // the attempt failed: confirmable again with another payment method
  "provider_requires_action", // the customer must authenticate with the provider
  "provider_outcome_unknown", // ambiguous answer (timeout): stays processing, never guessed
  "capture", // a held authorization was captured (fully or partly)
  "cancel", // the intent is abandoned; a held authorization is voided first
] as const;

/** A trigger of the state machine. */
export type IntentTrigger = (typeof intentTriggers)[number];

/** THE transition table. succeeded and canceled are terminal. */
export const transitionTable: Readonly<Record<IntentStatus, Readonly<Partial<Record<IntentTrigger, IntentStatus>>>>> = {
  requires_payment_method: { confirm: "processing", cancel: "canceled" },
  requires_confirmation: { confirm: "processing", cancel: "canceled" },
  processing: {
    retry_unknown: "processing",
    provider_authorized: "requires_capture",
    provider_captured: "succeeded",
    provider_declined: "requires_payment_method",
    provider_requires_action: "requires_action",
    provider_outcome_unknown: "processing",
  },
  requires_action: {
    confirm: "requires_action", // continues: the provider is asked about the same attempt, whose answer then applies
    provider_authorized: "requires_capture",
    provider_captured: "succeeded",
    provider_declined: "requires_payment_method",
    cancel: "canceled",
  },
  requires_capture: { capture: "succeeded", cancel: "canceled" },
  succeeded: {},
  canceled: {},
};

/** The status `trigger` leads to from `status`, or undefined when the table has no such edge. */
export const nextStatus = (status: IntentStatus, trigger: IntentTrigger): IntentStatus | undefined =>
  transitionTable[status][trigger];

/** The next status, failing IllegalTransition (409) when the table has no such edge. */
export const transition = (status: IntentStatus, trigger: IntentTrigger): Effect.Effect<IntentStatus, IllegalTransition> => {
  const next = nextStatus(status, trigger);
  return next === undefined
    ? Effect.fail(new IllegalTransition({ from: status, trigger, detail: `A payment intent in status ${status} cannot ${trigger.replace(/_/g, " ")}.` }))
    : Effect.succeed(next);
};

/** True when no trigger leads anywhere from `status`. */
export const isTerminal = (status: IntentStatus): boolean => Object.keys(transitionTable[status]).length === 0;
