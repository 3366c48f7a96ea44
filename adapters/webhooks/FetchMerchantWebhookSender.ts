/** Moved to adapters/payments/webhooks/FetchMerchantWebhookSender.ts; this re-export remains only until hosts import the new path. */
export * from "../payments/webhooks/FetchMerchantWebhookSender.js";
