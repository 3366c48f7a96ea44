/** Postgres adapter: the driver and what differs on Postgres. */
export * from "./openPostgres.js";
export * from "./postgresFeatures.js";
export * from "./PostgresRealtimeBus.js";
