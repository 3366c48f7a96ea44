/**
 * The payment module's SQL adapter: its repositories and migrations (`migrate(db, [paymentsModule])`
 * creates the payment tables).
 */

export * from "./paymentsMigrations.js";
export * from "./SqlPaymentsRepository.js";
export * from "./SqlApiKeys.js";
export * from "./paymentsMigration0004.js";
export * from "./paymentsMigration0005DeadDeliveries.js";
export * from "./paymentsMigration0006ExceptionReports.js";
export * from "./SqlClientSecrets.js";
export * from "./SqlWebhookEndpoints.js";
export * from "./SqlDisputes.js";
export * from "./SqlProviderWebhookInbox.js";
export * from "./SqlReconciliationRepository.js";
export * from "./paymentsMigration0002Reconciliation.js";

