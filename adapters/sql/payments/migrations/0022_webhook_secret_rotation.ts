/**
 * Payments migration 22: a merchant webhook endpoint keeps its previous signing secret, with an
 * expiry, after a rotation (spec, Payment service, Authentication 5: secrets rotate with
 * overlapping keys). Deliveries are signed with every live secret until `previous_secret_expires_at`.
 * The database holds the pair together (both set or both null), refuses a previous secret equal to
 * the current one, and keeps the same length floor as the current one.
 *
 * SENSITIVE: `previous_signing_secret` is in the same protection class as `signing_secret`
 * (migration 4): stored as-is because HMAC signing needs the key, never returned, never logged.
 */
import type { Migration } from "../../Migration.js";

const pairing =
  `(previous_signing_secret IS NULL) = (previous_secret_expires_at IS NULL) ` +
  `AND (previous_signing_secret IS NULL OR (length(previous_signing_secret) >= 32 AND previous_signing_secret <> signing_secret))`;

const postgres = [
  `ALTER TABLE payment_webhook_endpoints ADD COLUMN previous_signing_secret text, ` +
    `ADD COLUMN previous_secret_expires_at timestamptz, ` +
    `ADD CONSTRAINT payment_webhook_endpoints_previous_secret CHECK (${pairing})`,
];

// SQLite adds no table constraint to an existing table; a CHECK on the last added column may
// name the others, and holds for every row written afterwards (existing rows have neither).
const sqlite = [
  `ALTER TABLE payment_webhook_endpoints ADD COLUMN previous_signing_secret TEXT`,
  `ALTER TABLE payment_webhook_endpoints ADD COLUMN previous_secret_expires_at TEXT CHECK (${pairing})`,
];

/** Version 22 of the payment module. */
export const paymentsMigration0022WebhookSecretRotation: Migration = {
  version: 22,
  name: "webhook_secret_rotation",
  sqlite,
  postgres,
};
