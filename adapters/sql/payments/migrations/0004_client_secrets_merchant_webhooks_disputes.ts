/**
 * Payments migration 4: intent client secrets (hash only), merchant webhook endpoints with their
 * signing secrets, deliveries (UNIQUE per endpoint and event), append-only delivery attempts,
 * dual-control replay requests (the database refuses an approval by the requester, and allows
 * one open request per delivery), and the read-only disputes projection.
 *
 * SENSITIVE: `payment_webhook_endpoints.signing_secret` holds the HMAC key merchants verify our
 * webhooks with. It must be readable to sign, so it is stored as-is (not hashed): it is never
 * returned after creation, never logged, and belongs in the same protection class as the
 * database credentials (encrypt the column once a vault-managed key exists).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  const money = dialect === "sqlite" ? "INTEGER" : "bigint";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  return [
    `CREATE TABLE payment_client_secrets (
      intent_id ${text} PRIMARY KEY REFERENCES payment_intents (id),
      merchant_id ${text} NOT NULL,
      secret_hash ${text} NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
      created_at ${time} NOT NULL
    )`,
    `CREATE TABLE payment_webhook_endpoints (
      id ${text} PRIMARY KEY,
      merchant_id ${text} NOT NULL REFERENCES payment_merchants (id),
      url ${text} NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
      events ${json},
      signing_secret ${text} NOT NULL CHECK (length(signing_secret) >= 32),
      created_at ${time} NOT NULL,
      deleted_at ${time}
    )`,
    `CREATE INDEX payment_webhook_endpoints_merchant ON payment_webhook_endpoints (merchant_id, id)`,
    `CREATE TABLE payment_webhook_deliveries (
      id ${text} PRIMARY KEY,
      endpoint_id ${text} NOT NULL REFERENCES payment_webhook_endpoints (id),
      merchant_id ${text} NOT NULL,
      event_id ${text} NOT NULL,
      event_type ${text} NOT NULL,
      body ${text} NOT NULL,
      status ${text} NOT NULL CHECK (status IN ('pending', 'succeeded', 'dead')),
      attempts ${int} NOT NULL CHECK (attempts >= 0),
      last_error ${text},
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL,
      UNIQUE (endpoint_id, event_id)
    )`,
    `CREATE INDEX payment_webhook_deliveries_endpoint ON payment_webhook_deliveries (endpoint_id, id)`,
    `CREATE TABLE payment_webhook_delivery_attempts (
      id ${text} PRIMARY KEY,
      delivery_id ${text} NOT NULL REFERENCES payment_webhook_deliveries (id),
      number ${int} NOT NULL CHECK (number >= 1),
      status_code ${int},
      error ${text},
      attempted_at ${time} NOT NULL,
      UNIQUE (delivery_id, number)
    )`,
    `CREATE TABLE payment_webhook_replay_requests (
      id ${text} PRIMARY KEY,
      delivery_id ${text} NOT NULL REFERENCES payment_webhook_deliveries (id),
      requested_by ${text} NOT NULL CHECK (length(requested_by) > 0),
      reason ${text} NOT NULL CHECK (length(reason) > 0),
      requested_at ${time} NOT NULL,
      approved_by ${text},
      approval_reason ${text},
      approved_at ${time},
      CHECK (approved_by IS NULL OR approved_by <> requested_by),
      CHECK ((approved_by IS NULL) = (approved_at IS NULL) AND (approved_by IS NULL) = (approval_reason IS NULL))
    )`,
    // One open request per delivery: a second operator approves it rather than opening another.
    `CREATE UNIQUE INDEX payment_webhook_replay_requests_open ON payment_webhook_replay_requests (delivery_id) WHERE approved_by IS NULL`,
    `CREATE TABLE payment_disputes (
      id ${text} PRIMARY KEY,
      provider_dispute_id ${text} NOT NULL UNIQUE,
      merchant_id ${text} NOT NULL REFERENCES payment_merchants (id),
      payment_intent_id ${text} NOT NULL REFERENCES payment_intents (id),
      amount_minor ${money} NOT NULL CHECK (amount_minor > 0),
      currency ${text} NOT NULL CHECK (length(currency) = 3),
      reason ${text} NOT NULL,
      status ${text} NOT NULL CHECK (status IN ('needs_response', 'under_review', 'won', 'lost')),
      last_event_ms ${money} NOT NULL,
      last_event_id ${text} NOT NULL,
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL
    )`,
    `CREATE INDEX payment_disputes_merchant ON payment_disputes (merchant_id, id)`,
    ...appendOnlyTriggersSql(dialect, "payment_webhook_delivery_attempts"),
  ];
};

/** Payments migration 4 (client secrets, merchant webhooks, disputes). */
export const paymentsMigration0004: Migration = {
  version: 4,
  name: "client_secrets_merchant_webhooks_disputes",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
