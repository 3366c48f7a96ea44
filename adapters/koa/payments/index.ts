/** Every route of the payment module. */
import { disputeRoutes } from "./DisputeRoutes.js";
import { apiKeyRoutes } from "./KeyRoutes.js";
import { paymentIntentRoutes } from "./PaymentIntentRoutes.js";
import { reconciliationRoutes } from "./ReconciliationRoutes.js";
import { refundRoutes } from "./RefundRoutes.js";
import { riskRoutes } from "./RiskRoutes.js";
import { webhookEndpointRoutes } from "./WebhookEndpointRoutes.js";
import { webhookRoutes } from "./WebhookRoutes.js";

export * from "./PaymentSchemas.js";
export * from "./KeySchemas.js";
export * from "./WebhookEndpointSchemas.js";
export * from "./OperatorSchemas.js";
export * from "./ReconciliationSchemas.js";
export * from "./RiskSchemas.js";
export * from "./PaymentIntentRoutes.js";
export * from "./RefundRoutes.js";
export * from "./KeyRoutes.js";
export * from "./WebhookEndpointRoutes.js";
export * from "./DisputeRoutes.js";
export * from "./OperatorRoutes.js";
export * from "./WebhookRoutes.js";
export * from "./ReconciliationRoutes.js";
export * from "./RiskRoutes.js";

/**
 * The payment module's routes, in documentation order. The platform operator routes are built
 * from the configured operators (`makeOperatorRoutes`) and mounted beside these.
 */
export const paymentsRoutes = [
  ...paymentIntentRoutes,
  ...refundRoutes,
  ...apiKeyRoutes,
  ...webhookEndpointRoutes,
  ...disputeRoutes,
  ...webhookRoutes,
  ...reconciliationRoutes,
  ...riskRoutes,
];

/** The former name of `paymentsRoutes`, kept while hosts/modules/paymentsModule.ts imports it. */
export const paymentRoutes = paymentsRoutes;
