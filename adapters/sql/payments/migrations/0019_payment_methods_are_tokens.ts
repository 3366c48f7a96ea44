/**
 * Payments migration 19: the database stores only provider tokens as payment methods (spec, Payment
 * service, Resources rule 4: "Tokens are provider tokens. Raw card numbers and CVV are never
 * stored"). The routes take `pm_…` tokens only and the core refuses anything else
 * (core/payments/model/PaymentMethodToken.ts); these triggers refuse a payment method of an intent
 * or an attempt that is not `pm_` and 1 to 64 letters, digits or underscores, whoever writes it.
 * Only a new or changed value is checked, so rows written before this version stay readable and
 * updatable.
 */
import type { Migration } from "../../Migration.js";

const tables = ["payment_intents", "payment_attempts"] as const;

const postgres = [
  `CREATE FUNCTION payment_method_is_token() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.payment_method IS NOT NULL AND NEW.payment_method !~ '^pm_[A-Za-z0-9_]{1,64}$' THEN
       RAISE EXCEPTION 'a payment method is stored only as a provider token' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  ...tables.flatMap((table) => [
    `CREATE TRIGGER ${table}_payment_method_insert BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION payment_method_is_token()`,
    `CREATE TRIGGER ${table}_payment_method_update BEFORE UPDATE OF payment_method ON ${table} FOR EACH ROW ` +
      `WHEN (NEW.payment_method IS DISTINCT FROM OLD.payment_method) EXECUTE FUNCTION payment_method_is_token()`,
  ]),
];

// SQLite has no regular expressions: `pm_`, then 1 to 64 characters none of which is outside [A-Za-z0-9_].
const notAToken =
  `NEW.payment_method IS NOT NULL AND NOT (substr(NEW.payment_method, 1, 3) = 'pm_' ` +
  `AND length(NEW.payment_method) BETWEEN 4 AND 67 AND substr(NEW.payment_method, 4) NOT GLOB '*[^A-Za-z0-9_]*')`;

const sqlite = tables.flatMap((table) => [
  `CREATE TRIGGER ${table}_payment_method_insert BEFORE INSERT ON ${table} FOR EACH ROW WHEN ${notAToken} ` +
    `BEGIN SELECT RAISE(ABORT, 'a payment method is stored only as a provider token'); END`,
  `CREATE TRIGGER ${table}_payment_method_update BEFORE UPDATE OF payment_method ON ${table} FOR EACH ROW ` +
    `WHEN NEW.payment_method IS NOT OLD.payment_method AND ${notAToken} ` +
    `BEGIN SELECT RAISE(ABORT, 'a payment method is stored only as a provider token'); END`,
]);

/** Version 19 of the payment module. */
export const paymentsMigration0019PaymentMethodsAreTokens: Migration = {
  version: 19,
  name: "payment_methods_are_tokens",
  sqlite,
  postgres,
};
