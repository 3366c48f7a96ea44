/** Runs the idempotency contract kit against the SQLite and Postgres adapters. */
import t from "tap";
import { idempotencySuite } from "../contract/index.js";
import { dialects } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

for (const dialect of dialects) {
  t.test(`idempotency contract [${dialect}]`, (t) =>
    idempotencySuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
