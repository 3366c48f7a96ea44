/**
 * Payments migration 6: the exception reports, one row per (merchant, report day) — the
 * primary key makes a repeated or raced report run record (and announce) each report once —
 * append-only in the database like every other reconciliation outcome.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  return [
    `CREATE TABLE payment_exception_reports (
      merchant_key ${text} NOT NULL CHECK (length(merchant_key) > 0),
      report_day ${text} NOT NULL CHECK (length(report_day) = 10),
      open_count ${int} NOT NULL CHECK (open_count > 0),
      summary ${json} NOT NULL,
      created_at ${time} NOT NULL,
      PRIMARY KEY (merchant_key, report_day)
    )`,
    ...appendOnlyTriggersSql(dialect, "payment_exception_reports"),
  ];
};

/** Version 6 of the payment module. */
export const paymentsMigration0006ExceptionReports: Migration = {
  version: 6,
  name: "payment_exception_reports",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
