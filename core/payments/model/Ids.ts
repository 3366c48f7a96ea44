/**
 * The ids of the payment module's records, branded so that one record's id cannot be passed
 * where another's is expected. Ids are made by the `Ids` port as plain strings and branded where
 * a record is created (`RefundId.make(yield* ids.next)`); route parameters and stored rows decode
 * into the brands. An id is any string here (what the routes accept; ids the server makes are
 * UUIDv7), so an unknown or malformed id still answers 404. Provider-side ids (provider payment,
 * dispute and event ids) are the provider's strings and stay unbranded.
 */
import { Schema } from "effect";

/** A merchant's id (the tenant key). */
export const MerchantId = Schema.String.pipe(Schema.brand("MerchantId"));
export type MerchantId = typeof MerchantId.Type;

/** A payment intent's id. */
export const PaymentIntentId = Schema.String.pipe(Schema.brand("PaymentIntentId"));
export type PaymentIntentId = typeof PaymentIntentId.Type;

/** A payment attempt's id. */
export const PaymentAttemptId = Schema.String.pipe(Schema.brand("PaymentAttemptId"));
export type PaymentAttemptId = typeof PaymentAttemptId.Type;

/** A refund's id. */
export const RefundId = Schema.String.pipe(Schema.brand("RefundId"));
export type RefundId = typeof RefundId.Type;

/** A merchant API key's id. */
export const ApiKeyId = Schema.String.pipe(Schema.brand("ApiKeyId"));
export type ApiKeyId = typeof ApiKeyId.Type;

/** An audit record's id. */
export const AuditRecordId = Schema.String.pipe(Schema.brand("AuditRecordId"));
export type AuditRecordId = typeof AuditRecordId.Type;

/** A ledger entry's id (a balance transaction of the merchant's view). */
export const BalanceEntryId = Schema.String.pipe(Schema.brand("BalanceEntryId"));
export type BalanceEntryId = typeof BalanceEntryId.Type;

/** A ledger transaction's id. */
export const LedgerTransactionId = Schema.String.pipe(Schema.brand("LedgerTransactionId"));
export type LedgerTransactionId = typeof LedgerTransactionId.Type;

/** A projected dispute's id (ours; the provider's is `providerDisputeId`). */
export const DisputeId = Schema.String.pipe(Schema.brand("DisputeId"));
export type DisputeId = typeof DisputeId.Type;

/** A reconciliation exception's id. */
export const ReconciliationExceptionId = Schema.String.pipe(Schema.brand("ReconciliationExceptionId"));
export type ReconciliationExceptionId = typeof ReconciliationExceptionId.Type;

/** A reconciliation outcome's id. */
export const ReconciliationOutcomeId = Schema.String.pipe(Schema.brand("ReconciliationOutcomeId"));
export type ReconciliationOutcomeId = typeof ReconciliationOutcomeId.Type;

/** A merchant webhook endpoint's id. */
export const WebhookEndpointId = Schema.String.pipe(Schema.brand("WebhookEndpointId"));
export type WebhookEndpointId = typeof WebhookEndpointId.Type;

/** A merchant webhook delivery's id. */
export const WebhookDeliveryId = Schema.String.pipe(Schema.brand("WebhookDeliveryId"));
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type;

/** One attempt of a webhook delivery. */
export const DeliveryAttemptId = Schema.String.pipe(Schema.brand("DeliveryAttemptId"));
export type DeliveryAttemptId = typeof DeliveryAttemptId.Type;

/** A request to replay a dead delivery. */
export const ReplayRequestId = Schema.String.pipe(Schema.brand("ReplayRequestId"));
export type ReplayRequestId = typeof ReplayRequestId.Type;

/** A stored provider event's id (ours; the provider's is `providerEventId`). */
export const StoredProviderEventId = Schema.String.pipe(Schema.brand("StoredProviderEventId"));
export type StoredProviderEventId = typeof StoredProviderEventId.Type;

/** A risk hold's id. */
export const RiskHoldId = Schema.String.pipe(Schema.brand("RiskHoldId"));
export type RiskHoldId = typeof RiskHoldId.Type;
