/** Moved to adapters/payments/providers/http/HttpProviderClient.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/http/HttpProviderClient.js";
