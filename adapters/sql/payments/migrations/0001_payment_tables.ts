/**
 * The payment module's tables, for SQLite and Postgres. Amounts are integer minor units with
 * CHECKs tying them together (captured within the amount, refunded within the captured); every
 * status column has a CHECK; API keys keep only a hash; the ledger and the audit log are
 * append-only (the database refuses UPDATE and DELETE) and a ledger source is UNIQUE.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statuses =
  "'requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture', 'succeeded', 'canceled'";

const tables = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  const money = dialect === "sqlite" ? "INTEGER" : "bigint";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  return [
    `CREATE TABLE payment_merchants (
      id ${text} PRIMARY KEY,
      name ${text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      created_at ${time} NOT NULL
    )`,
    `CREATE TABLE payment_api_keys (
      id ${text} PRIMARY KEY,
      merchant_id ${text} NOT NULL REFERENCES payment_merchants (id),
      key_prefix ${text} NOT NULL,
      secret_hash ${text} NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
      scopes ${json} NOT NULL,
      created_at ${time} NOT NULL,
      expires_at ${time},
      revoked_at ${time}
    )`,
    `CREATE INDEX payment_api_keys_prefix ON payment_api_keys (key_prefix)`,
    `CREATE TABLE payment_intents (
      id ${text} PRIMARY KEY,
      merchant_id ${text} NOT NULL REFERENCES payment_merchants (id),
      amount_minor ${money} NOT NULL CHECK (amount_minor > 0),
      currency ${text} NOT NULL CHECK (length(currency) = 3),
      capture_method ${text} NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
      status ${text} NOT NULL CHECK (status IN (${statuses})),
      amount_capturable_minor ${money} NOT NULL CHECK (amount_capturable_minor >= 0 AND amount_capturable_minor <= amount_minor),
      amount_captured_minor ${money} NOT NULL CHECK (amount_captured_minor >= 0 AND amount_captured_minor <= amount_minor),
      amount_refunded_minor ${money} NOT NULL CHECK (amount_refunded_minor >= 0 AND amount_refunded_minor <= amount_captured_minor),
      payment_method ${text},
      provider_payment_id ${text},
      attempt_count ${int} NOT NULL CHECK (attempt_count >= 0),
      last_decline_code ${text},
      version ${int} NOT NULL CHECK (version >= 1),
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL
    )`,
    `CREATE INDEX payment_intents_merchant ON payment_intents (merchant_id, id)`,
    `CREATE TABLE payment_attempts (
      id ${text} PRIMARY KEY,
      intent_id ${text} NOT NULL REFERENCES payment_intents (id),
      merchant_id ${text} NOT NULL,
      number ${int} NOT NULL CHECK (number >= 1),
      reference ${text} NOT NULL UNIQUE,
      payment_method ${text} NOT NULL,
      status ${text} NOT NULL CHECK (status IN ('pending', 'authorized', 'captured', 'requires_action', 'declined', 'unknown')),
      provider_payment_id ${text},
      decline_code ${text},
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL,
      UNIQUE (intent_id, number)
    )`,
    `CREATE TABLE payment_refunds (
      id ${text} PRIMARY KEY,
      intent_id ${text} NOT NULL REFERENCES payment_intents (id),
      merchant_id ${text} NOT NULL,
      amount_minor ${money} NOT NULL CHECK (amount_minor > 0),
      currency ${text} NOT NULL CHECK (length(currency) = 3),
      status ${text} NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      reference ${text} NOT NULL UNIQUE,
      failure_reason ${text},
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL
    )`,
    `CREATE INDEX payment_refunds_intent ON payment_refunds (intent_id, status)`,
    `CREATE TABLE payment_ledger_transactions (
      id ${text} PRIMARY KEY,
      source ${text} NOT NULL UNIQUE CHECK (length(source) > 0),
      merchant_id ${text} NOT NULL,
      reverses ${text} UNIQUE REFERENCES payment_ledger_transactions (source),
      created_at ${time} NOT NULL
    )`,
    `CREATE TABLE payment_ledger_entries (
      id ${text} PRIMARY KEY,
      transaction_id ${text} NOT NULL REFERENCES payment_ledger_transactions (id),
      merchant_id ${text} NOT NULL,
      account ${text} NOT NULL,
      amount_minor ${money} NOT NULL CHECK (amount_minor <> 0),
      currency ${text} NOT NULL CHECK (length(currency) = 3),
      created_at ${time} NOT NULL
    )`,
    `CREATE INDEX payment_ledger_entries_merchant ON payment_ledger_entries (merchant_id, id)`,
    `CREATE TABLE payment_audit_log (
      id ${text} PRIMARY KEY,
      merchant_id ${text},
      actor ${text} NOT NULL CHECK (length(actor) > 0),
      action ${text} NOT NULL,
      subject_type ${text} NOT NULL,
      subject_id ${text} NOT NULL,
      reason ${text} NOT NULL CHECK (length(reason) > 0),
      data ${json} NOT NULL,
      created_at ${time} NOT NULL
    )`,
    `CREATE INDEX payment_audit_log_subject ON payment_audit_log (subject_type, subject_id)`,
    // The webhook inbox (a later slice processes it): a provider event id is stored once.
    `CREATE TABLE payment_provider_events (
      id ${text} PRIMARY KEY,
      provider_event_id ${text} NOT NULL UNIQUE,
      type ${text} NOT NULL,
      payload ${json} NOT NULL,
      status ${text} NOT NULL CHECK (status IN ('received', 'processed', 'ignored')),
      received_at ${time} NOT NULL,
      processed_at ${time}
    )`,
    ...appendOnlyTriggersSql(dialect, "payment_ledger_transactions"),
    ...appendOnlyTriggersSql(dialect, "payment_ledger_entries"),
    ...appendOnlyTriggersSql(dialect, "payment_audit_log"),
  ];
};

/** The payment module's migrations, in version order. */
/** Version 1 of the payments module: its first tables. */
export const paymentsMigration0001: Migration = { version: 1, name: "payment_tables", sqlite: tables("sqlite"), postgres: tables("postgres") };
