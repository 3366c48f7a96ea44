/** Moved to adapters/payments/providers/http/HttpSettlementFiles.ts; this re-export remains only until hosts import the new path. */
export * from "../../payments/providers/http/HttpSettlementFiles.js";
