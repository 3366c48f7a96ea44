/**
 * The payment module's SQL adapter: its repositories and migrations (`migrate(db, [paymentsModule])`
 * creates the payment tables).
 */

export * from "./migrations/index.js";
export * from "./SqlPaymentsRepository.js";
export * from "./SqlApiKeys.js";
export * from "./migrations/0004_client_secrets_merchant_webhooks_disputes.js";
export * from "./migrations/0005_payment_webhook_deliveries_dead_index.js";
export * from "./migrations/0006_payment_exception_reports.js";
export * from "./SqlClientSecrets.js";
export * from "./SqlWebhookEndpoints.js";
export * from "./SqlDisputes.js";
export * from "./SqlProviderWebhookInbox.js";
export * from "./SqlReconciliationRepository.js";
export * from "./SqlProviderHealth.js";
export * from "./SqlRiskHolds.js";
export * from "./SqlRiskSignals.js";
export * from "./migrations/0002_provider_event_inbox_and_reconciliation.js";

