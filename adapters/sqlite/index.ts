/** SQLite adapter: the driver and what differs on SQLite. */
export * from "./openSqlite.js";
export * from "./sqliteFeatures.js";
export { settleOpenGroups } from "./GroupCommit.js";
