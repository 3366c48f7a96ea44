/**
 * Payments migration 23: a merchant's API keys are listed in keyset pages, newest first
 * (`GET /v1/api-keys`); this index serves the seek (`merchant_id = ? AND id < ? ORDER BY id DESC`),
 * as `payment_webhook_endpoints_merchant` does for the endpoints.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_api_keys_merchant ON payment_api_keys (merchant_id, id)`];

/** Version 23 of the payment module. */
export const paymentsMigration0023ApiKeysByMerchant: Migration = {
  version: 23,
  name: "api_keys_by_merchant",
  sqlite: statements,
  postgres: statements,
};
