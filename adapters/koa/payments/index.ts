/** Every route of the payment module. */
import { cancelIntentRoute, captureIntentRoute, confirmIntentRoute, createIntentRoute, getIntentRoute } from "./PaymentIntentRoutes.js";
import { createRefundRoute, listBalanceTransactionsRoute } from "./RefundRoutes.js";
import { listDisputesRoute } from "./DisputeRoutes.js";
import { apiKeyRoutes } from "./KeyRoutes.js";
import { webhookEndpointRoutes } from "./WebhookEndpointRoutes.js";
import { providerWebhookRoute } from "./WebhookRoutes.js";
import {
  getReconciliationExceptionRoute,
  listReconciliationExceptionsRoute,
  resolveReconciliationExceptionRoute,
} from "./ReconciliationRoutes.js";

export * from "./PaymentSchemas.js";
export * from "./PaymentIntentRoutes.js";
export * from "./RefundRoutes.js";
export * from "./KeyRoutes.js";
export * from "./WebhookEndpointRoutes.js";
export * from "./DisputeRoutes.js";
export * from "./OperatorRoutes.js";
export * from "./WebhookRoutes.js";
export * from "./ReconciliationRoutes.js";

/** The payment module's routes, in documentation order. */
export const paymentRoutes = [
  createIntentRoute,
  confirmIntentRoute,
  getIntentRoute,
  captureIntentRoute,
  cancelIntentRoute,
  createRefundRoute,
  listBalanceTransactionsRoute,
  ...apiKeyRoutes,
  ...webhookEndpointRoutes,
  listDisputesRoute,
  providerWebhookRoute,
  listReconciliationExceptionsRoute,
  getReconciliationExceptionRoute,
  resolveReconciliationExceptionRoute,
];
