/**
 * Payments migration 2: the verified webhook inbox becomes write-once (each row is inserted with
 * its outcome in the transaction that applied the event, so it is append-only in the
 * database), and the reconciliation exceptions queue with its append-only outcome log.
 * (provider_object, settlement_window, kind) is UNIQUE: a mismatch is opened once.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

// A resolved exception is never edited and no exception is deleted (the function comes from appendOnlyTriggersSql).
const settledTriggers = (dialect: SqlDialect): string[] =>
  dialect === "sqlite"
    ? [
        `CREATE TRIGGER payment_reconciliation_exceptions_settled BEFORE UPDATE ON payment_reconciliation_exceptions ` +
          `WHEN OLD.status = 'resolved' BEGIN SELECT RAISE(ABORT, 'a resolved reconciliation exception is never edited'); END`,
        `CREATE TRIGGER payment_reconciliation_exceptions_kept BEFORE DELETE ON payment_reconciliation_exceptions ` +
          `BEGIN SELECT RAISE(ABORT, 'reconciliation exceptions are never deleted'); END`,
      ]
    : [
        `CREATE TRIGGER payment_reconciliation_exceptions_settled BEFORE UPDATE ON payment_reconciliation_exceptions ` +
          `FOR EACH ROW WHEN (OLD.status = 'resolved') EXECUTE FUNCTION domainkit_refuse_change()`,
        `CREATE TRIGGER payment_reconciliation_exceptions_kept BEFORE DELETE ON payment_reconciliation_exceptions ` +
          `FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
      ];

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  return [
    `ALTER TABLE payment_provider_events ADD COLUMN outcome ${text}`,
    `ALTER TABLE payment_provider_events ADD COLUMN merchant_id ${text}`,
    `ALTER TABLE payment_provider_events ADD COLUMN provider_object ${text}`,
    `ALTER TABLE payment_provider_events ADD COLUMN occurred_at ${time}`,
    `CREATE INDEX payment_provider_events_object ON payment_provider_events (provider_object)`,
    ...appendOnlyTriggersSql(dialect, "payment_provider_events"),
    `CREATE TABLE payment_reconciliation_exceptions (
      id ${text} PRIMARY KEY,
      merchant_id ${text} REFERENCES payment_merchants (id),
      provider_object ${text} NOT NULL CHECK (length(provider_object) > 0),
      settlement_window ${text} NOT NULL CHECK (length(settlement_window) > 0),
      kind ${text} NOT NULL CHECK (kind IN ('missing', 'amount', 'currency', 'status', 'unresolved')),
      subject_type ${text} NOT NULL CHECK (subject_type IN ('payment_intent', 'refund', 'unknown')),
      subject_id ${text},
      expected ${json},
      observed ${json},
      currency ${text},
      status ${text} NOT NULL CHECK (status IN ('open', 'resolved')),
      resolution ${json},
      opened_at ${time} NOT NULL,
      resolved_at ${time},
      UNIQUE (provider_object, settlement_window, kind),
      CHECK ((status = 'open' AND resolved_at IS NULL AND resolution IS NULL) OR (status = 'resolved' AND resolved_at IS NOT NULL AND resolution IS NOT NULL))
    )`,
    `CREATE INDEX payment_reconciliation_exceptions_merchant ON payment_reconciliation_exceptions (merchant_id, id)`,
    ...settledTriggers(dialect),
    `CREATE TABLE payment_reconciliation_outcomes (
      id ${text} PRIMARY KEY,
      exception_id ${text} NOT NULL REFERENCES payment_reconciliation_exceptions (id),
      merchant_id ${text},
      action ${text} NOT NULL CHECK (action IN ('opened', 'resolved')),
      actor ${text} NOT NULL CHECK (length(actor) > 0),
      reason ${text} NOT NULL CHECK (length(reason) > 0),
      ledger_source ${text} REFERENCES payment_ledger_transactions (source),
      data ${json} NOT NULL,
      created_at ${time} NOT NULL,
      UNIQUE (exception_id, action)
    )`,
    ...appendOnlyTriggersSql(dialect, "payment_reconciliation_outcomes"),
  ];
};

/** Migration 2 of module "payments". */
export const paymentsMigration0002Reconciliation: Migration = {
  version: 2,
  name: "provider_event_inbox_and_reconciliation",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
