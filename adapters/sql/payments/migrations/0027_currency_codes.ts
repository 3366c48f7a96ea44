/**
 * Payments migration 27: money is stored with an ISO currency code (spec, Payment service,
 * Resources rule 1: "Money is integer minor units plus an ISO currency code"). Migration 1 checks
 * only the length; the core accepts only ISO 4217 codes (core/kernel/Money.ts). A new intent,
 * refund or ledger entry whose currency is not three capital letters A–Z is refused, and a
 * refund is in its intent's currency ("money of one intent is one currency"). Inserts only: these
 * columns never change (migrations 17 and 18; ledger entries are append-only), and rows written
 * before stay readable.
 */
import type { Migration } from "../../Migration.js";

const tables = ["payment_intents", "payment_refunds", "payment_ledger_entries"] as const;

const postgres = [
  `CREATE FUNCTION payment_currency_is_code() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.currency !~ '^[A-Z]{3}$' THEN
       RAISE EXCEPTION 'a currency is an ISO code of three capital letters' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  ...tables.map((table) => `CREATE TRIGGER ${table}_currency_code BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION payment_currency_is_code()`),
  `CREATE FUNCTION payment_refunds_in_intent_currency() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.currency IS DISTINCT FROM (SELECT currency FROM payment_intents WHERE id = NEW.intent_id) THEN
       RAISE EXCEPTION 'a refund is in its payment intent''s currency' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_refunds_intent_currency BEFORE INSERT ON payment_refunds FOR EACH ROW EXECUTE FUNCTION payment_refunds_in_intent_currency()`,
];

const sqlite = [
  ...tables.map(
    (table) =>
      `CREATE TRIGGER ${table}_currency_code BEFORE INSERT ON ${table} FOR EACH ROW WHEN NEW.currency NOT GLOB '[A-Z][A-Z][A-Z]' ` +
      `BEGIN SELECT RAISE(ABORT, 'a currency is an ISO code of three capital letters'); END`,
  ),
  `CREATE TRIGGER payment_refunds_intent_currency BEFORE INSERT ON payment_refunds FOR EACH ROW ` +
    `WHEN NEW.currency IS NOT (SELECT currency FROM payment_intents WHERE id = NEW.intent_id) ` +
    `BEGIN SELECT RAISE(ABORT, 'a refund is in its payment intent''s currency'); END`,
];

/** Version 27 of the payment module. */
export const paymentsMigration0027CurrencyCodes: Migration = {
  version: 27,
  name: "currency_codes",
  sqlite,
  postgres,
};
