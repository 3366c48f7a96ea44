/**
 * Commerce migration 30: checkouts in flight count against checkout risk (docs/known-gaps.md,
 * E-commerce). `shop_checkout_risk_locks` holds one row per signal digest: a checkout upserts the
 * rows of its signals (in digest order) in its transaction, which serializes the checkouts of one
 * signal on Postgres (SQLite has one writer), and then counts, under that lock, the signal's
 * declines within the hour plus its checkouts whose payment is unresolved. A lock row is a digest
 * (64 lowercase hex characters) and the time it was last taken; retention deletes it a day later.
 * `shop_checkout_risk_undecided` seeks a signal's undeclined checkouts of the window.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  const isDigest = dialect === "postgres" ? `signal ~ '^[0-9a-f]{64}$'` : `length(signal) = 64 AND signal NOT GLOB '*[^0-9a-f]*'`;
  return [
    `CREATE TABLE shop_checkout_risk_locks (
      signal ${c.text} PRIMARY KEY CHECK (${isDigest}),
      locked_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX shop_checkout_risk_locks_locked ON shop_checkout_risk_locks (locked_at)`,
    `CREATE INDEX shop_checkout_risk_undecided ON shop_checkout_risk_signals (signal, recorded_at) WHERE declined_at IS NULL`,
  ];
};

export const commerceMigration0030CheckoutRiskLocks: Migration = {
  version: 30,
  name: "checkout_risk_locks",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
