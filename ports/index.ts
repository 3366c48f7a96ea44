/** Ports shared by every module: interfaces plus the `Context.Tag` of the same name. */
export * from "./Ids.js";
export * from "./Transactions.js";
export * from "./Principal.js";
export * from "./UserEpochs.js";
export * from "./Outbox.js";
export * from "./Inbox.js";
export * from "./Jobs.js";
export * from "./IdempotencyStore.js";
export * from "./Realtime.js";
export * from "./Mailer.js";
export * from "./ObjectStore.js";
export * from "./GrantChecks.js";
export * from "./Scanner.js";
export * from "./PaymentGateway.js";
export * from "./WorkSignals.js";
