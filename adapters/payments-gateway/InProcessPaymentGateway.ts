/** Moved to adapters/payments/gateway/InProcessPaymentGateway.ts; this re-export remains only until hosts import the new path. */
export * from "../payments/gateway/InProcessPaymentGateway.js";
