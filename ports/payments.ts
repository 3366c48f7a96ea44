/** Ports of the payment module: its repository, the payment provider and merchant API keys. */
export * from "./payments/PaymentsRepository.js";
export * from "./payments/PaymentProvider.js";
export * from "./payments/ApiKeys.js";
