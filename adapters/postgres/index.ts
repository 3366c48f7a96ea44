/** Postgres adapter: the driver and what differs on Postgres. */
export * from "./openPostgres.js";
export * from "./postgresFeatures.js";
export * from "./PostgresRealtimeBus.js";
export * from "./PostgresListener.js";
export * from "./PostgresWorkSignals.js";
export * from "./PostgresLimiters.js";
