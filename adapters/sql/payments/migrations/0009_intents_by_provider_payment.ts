/**
 * Payments migration 9: payment intents by their provider payment. A dispute notice from the
 * provider names the disputed payment by the provider's id, and `Disputes.intentOfProviderPayment`
 * finds the intent by it; without this index every dispute read every intent ever created.
 * Partial (`IS NOT NULL`): an intent without a provider payment is never looked up this way, and
 * `provider_payment_id = ?` implies the predicate on both dialects.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_intents_provider_payment ON payment_intents (provider_payment_id) WHERE provider_payment_id IS NOT NULL`];

/** Version 9 of the payment module. */
export const paymentsMigration0009IntentsByProviderPayment: Migration = {
  version: 9,
  name: "intents_by_provider_payment",
  sqlite: statements,
  postgres: statements,
};
