/**
 * The payment module's domain events (docs/conventions.md, Events), appended to the outbox in
 * the transaction that makes them true; merchant webhooks and reports consume them. Data carry
 * ids and amounts only: never tokens or secrets.
 */
import { Schema } from "effect";
import { defineEvent, eventUnion } from "../kernel/EventDefinition.js";
import { MismatchKind, ReconciliationException } from "./model/ReconciliationException.js";
import { PaymentIntentId, ReconciliationExceptionId, RefundId } from "./model/Ids.js";

/** An intent was captured (fully or partly). */
export const PaymentSucceeded = defineEvent(
  "PaymentSucceeded",
  1,
  Schema.Struct({ payment_intent_id: PaymentIntentId, amount_captured_minor: Schema.Int, currency: Schema.String }),
);

/** A refund completed at the provider. */
export const RefundSucceeded = defineEvent(
  "RefundSucceeded",
  1,
  Schema.Struct({ refund_id: RefundId, payment_intent_id: PaymentIntentId, amount_minor: Schema.Int, currency: Schema.String }),
);

/** A reconciliation exception was opened. */
export const ReconciliationMismatchFound = defineEvent(
  "ReconciliationMismatchFound",
  1,
  Schema.Struct({
    reconciliation_exception_id: ReconciliationExceptionId,
    kind: MismatchKind,
    /** Every kind found for the object in the window (events written before it carry `kind` only). */
    kinds: Schema.optional(Schema.Array(MismatchKind)),
    provider_object: Schema.String,
    settlement_window: Schema.String,
    subject_type: ReconciliationException.fields.subjectType,
    subject_id: Schema.NullOr(Schema.String),
  }),
);

/** The daily report of a merchant's (or the platform's) open exceptions. */
export const ReconciliationExceptionsOpen = defineEvent(
  "ReconciliationExceptionsOpen",
  1,
  Schema.Struct({
    report_day: Schema.String,
    open: Schema.Int,
    by_kind: Schema.Record({ key: Schema.String, value: Schema.Int }),
    oldest_opened_at: Schema.String,
  }),
);

/** Every event of the payment module, decoded by type. */
export const PaymentsEvent = eventUnion(PaymentSucceeded, RefundSucceeded, ReconciliationMismatchFound, ReconciliationExceptionsOpen);
export type PaymentsEvent = typeof PaymentsEvent.Type;
