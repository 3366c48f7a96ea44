/** Moved to adapters/payments/providers/http/HttpPaymentProvider.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/http/HttpPaymentProvider.js";
