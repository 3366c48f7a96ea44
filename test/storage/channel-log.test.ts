/** Runs the channelLog contract kit against the SQLite and Postgres adapters. */
import t from "tap";
import { channelLogSuite } from "../contract/index.js";
import { dialects } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`channelLog contract [${dialect}]`, (t) =>
    channelLogSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
