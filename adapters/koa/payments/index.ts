/** Every route of the payment module. */
import { cancelIntentRoute, captureIntentRoute, confirmIntentRoute, createIntentRoute, getIntentRoute } from "./PaymentIntentRoutes.js";
import { createRefundRoute, listBalanceTransactionsRoute } from "./RefundRoutes.js";

export * from "./PaymentSchemas.js";
export * from "./PaymentIntentRoutes.js";
export * from "./RefundRoutes.js";

/** The payment module's routes, in documentation order. */
export const paymentRoutes = [
  createIntentRoute,
  confirmIntentRoute,
  getIntentRoute,
  captureIntentRoute,
  cancelIntentRoute,
  createRefundRoute,
  listBalanceTransactionsRoute,
];
