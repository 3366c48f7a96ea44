/** Ports of the payment module: its repository, the payment provider and merchant API keys. */
export * from "./payments/PaymentsRepository.js";
export * from "./payments/PaymentProvider.js";
export * from "./payments/ApiKeys.js";
export * from "./payments/ProviderEvents.js";
export * from "./payments/ReconciliationRepository.js";
export * from "./payments/ReconciliationSettings.js";
