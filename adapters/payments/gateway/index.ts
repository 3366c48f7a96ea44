/** Adapters of the PaymentGateway port: the payment core in the same process, or its HTTP API. */
export * from "./GatewayErrors.js";
export * from "./InProcessPaymentGateway.js";
export * from "./HttpPaymentGateway.js";
