/** Ports of the payment module: its repository, the payment provider and merchant API keys. */
export * from "./payments/PaymentsRepository.js";
export * from "./payments/PaymentProvider.js";
export * from "./payments/ApiKeys.js";
export * from "./payments/ClientSecrets.js";
export * from "./payments/WebhookEndpoints.js";
export * from "./payments/WebhookEndpointsSender.js";
export * from "./payments/Disputes.js";
export * from "./payments/ProviderEvents.js";
export * from "./payments/ReconciliationRepository.js";
export * from "./payments/ReconciliationSettings.js";
