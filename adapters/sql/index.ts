/** The SQL storage adapter: drivers' common interface, transactions, migrations, repositories. */
export * from "./SqlDatabase.js";
export * from "./DialectFeatures.js";
export * from "./featuresFor.js";
export * from "./Transactions.js";
export * from "./Migrations.js";
export * from "./appendOnlyTriggers.js";
export * from "./kernelMigrations.js";
export * from "./runQuery.js";
export * from "./SqlOutbox.js";
export * from "./SqlInbox.js";
export * from "./SqlJobs.js";
export * from "./SqlIdempotencyStore.js";
export * from "./SqlUserEpochs.js";
export * from "./SqlChannelLog.js";
export * from "./storageLayer.js";
export * from "./realtimeBus.js";
export type { ClosableRealtimeBus } from "../sqlite/InProcessRealtimeBus.js";
