/**
 * The contract test kits (the package's `testkit` subpath). Each kit is
 * `xxxSuite({ test, factory, supports })`; its cases are exported too (`xxxCases`), so an
 * adapter author can run one group or add their own.
 */
export * from "./Kit.js";
export * from "./transactionsKit.js";
export * from "./outboxKit.js";
export * from "./inboxKit.js";
export * from "./jobsKit.js";
export * from "./idempotencyKit.js";
export * from "./userEpochsKit.js";
export * from "./channelLogKit.js";
export * from "./realtimeBusKit.js";
export * from "./workSignalsKit.js";
export * from "./paymentGatewayKit.js";
export * from "./projects/index.js";
export * from "./payments/index.js";
export * from "./files/index.js";
export * from "./commerce/index.js";
export * from "./delivery/index.js";
export * from "./objectStoreKit.js";
