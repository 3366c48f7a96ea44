/** The payment module's pure core: intents, their state machine, refunds, ledger postings, merchants. */
export * from "./IntentStatus.js";
export * from "./PaymentErrors.js";
export * from "./PaymentIntent.js";
export * from "./ProviderReferences.js";
export * from "./MerchantAccess.js";
export * from "./LedgerPostings.js";
export * from "./CreateIntent.js";
export * from "./ConfirmIntent.js";
export * from "./GetIntent.js";
export * from "./CaptureIntent.js";
export * from "./CancelIntent.js";
export * from "./CreateRefund.js";
export * from "./ListBalanceTransactions.js";
export * from "./Merchants.js";
export * from "./PaymentEvents.js";
export * from "./ReconcileIntent.js";
