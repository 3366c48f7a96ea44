/** Runs the inbox contract kit against the SQLite and Postgres adapters. */
import t from "tap";
import { inboxSuite } from "../contract/index.js";
import { dialects } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`inbox contract [${dialect}]`, (t) =>
    inboxSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
