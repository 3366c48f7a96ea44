/**
 * Payments migration 25: a succeeded payment intent has captured something (spec, Payment service:
 * a captured intent has "balanced ledger posting in the same transaction"; a capture of nothing
 * posts nothing and would end the intent with no money moved). An intent inserted as succeeded,
 * or moved to succeeded, with `amount_captured_minor` of 0 is refused, whoever writes. Rows
 * already succeeded are not checked again (their captured amount never changes, migration 18).
 */
import type { Migration } from "../../Migration.js";

const message = "a succeeded payment intent has captured something";

const postgres = [
  `CREATE FUNCTION payment_intents_succeeded_captured() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.status = 'succeeded' AND NEW.amount_captured_minor <= 0
        AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'succeeded') THEN
       RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_intents_succeeded_captured BEFORE INSERT OR UPDATE OF status, amount_captured_minor ON payment_intents
   FOR EACH ROW EXECUTE FUNCTION payment_intents_succeeded_captured()`,
];

const sqlite = [
  `CREATE TRIGGER payment_intents_succeeded_captured_insert BEFORE INSERT ON payment_intents FOR EACH ROW ` +
    `WHEN NEW.status = 'succeeded' AND NEW.amount_captured_minor <= 0 ` +
    `BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  `CREATE TRIGGER payment_intents_succeeded_captured_update BEFORE UPDATE OF status, amount_captured_minor ON payment_intents FOR EACH ROW ` +
    `WHEN NEW.status = 'succeeded' AND NEW.amount_captured_minor <= 0 AND OLD.status IS NOT 'succeeded' ` +
    `BEGIN SELECT RAISE(ABORT, '${message}'); END`,
];

/** Version 25 of the payment module. */
export const paymentsMigration0025SucceededIntentsCaptured: Migration = {
  version: 25,
  name: "succeeded_intents_captured",
  sqlite,
  postgres,
};
