/** Runs the userEpochs contract kit against the SQLite and Postgres adapters. */
import t from "tap";
import { userEpochsSuite } from "../contract/index.js";
import { dialects } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`userEpochs contract [${dialect}]`, (t) =>
    userEpochsSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
