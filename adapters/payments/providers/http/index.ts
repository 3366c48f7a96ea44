/** The payment provider over HTTP: PaymentProvider and settlement files against the provider's API. */
export * from "./HttpProviderClient.js";
export * from "./HttpPaymentProvider.js";
export * from "./HttpSettlementFiles.js";
