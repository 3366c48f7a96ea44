/** Runs the transactions contract kit against the SQLite and Postgres adapters. */
import t from "tap";
import { transactionsSuite } from "../contract/index.js";
import { dialects } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`transactions contract [${dialect}]`, (t) =>
    transactionsSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
