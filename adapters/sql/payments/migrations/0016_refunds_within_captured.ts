/**
 * Payments migration 16: the database refuses a refund that would take an intent's pending and
 * completed refunds above its captured amount (spec, Payment service: "requested amount within
 * captured amount minus completed and pending refunds"; Limits: "Refund total is bounded by the
 * captured amount"). The refund command checks the same under the intent's row lock; this makes it
 * hold whoever writes a refund. A failed refund does not count.
 *   - Postgres: a BEFORE INSERT / UPDATE trigger first locks the intent's row (`FOR UPDATE`, which
 *     the commands already hold: the lock order stays the intent, then its refunds), then sums in
 *     a fresh snapshot, so two transactions racing on parallel connections cannot both pass.
 *   - SQLite serializes writers: BEFORE INSERT / UPDATE triggers sum and refuse.
 */
import type { Migration } from "../../Migration.js";

const postgres = [
  `CREATE FUNCTION payment_refunds_within_captured() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     captured bigint;
     counted bigint;
   BEGIN
     IF NEW.status = 'failed' THEN
       RETURN NEW;
     END IF;
     SELECT amount_captured_minor INTO captured FROM payment_intents WHERE id = NEW.intent_id FOR UPDATE;
     SELECT coalesce(sum(amount_minor), 0) INTO counted FROM payment_refunds
       WHERE intent_id = NEW.intent_id AND status <> 'failed' AND id <> NEW.id;
     IF counted + NEW.amount_minor > captured THEN
       RAISE EXCEPTION 'refunds of payment intent % would exceed its captured amount', NEW.intent_id
         USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_refunds_within_captured BEFORE INSERT OR UPDATE OF amount_minor, intent_id, status ON payment_refunds
   FOR EACH ROW EXECUTE FUNCTION payment_refunds_within_captured()`,
];

const beyondCaptured = (excludeOld: boolean) =>
  `WHEN NEW.status <> 'failed' AND ` +
  `(SELECT coalesce(sum(amount_minor), 0) FROM payment_refunds WHERE intent_id = NEW.intent_id AND status <> 'failed'${excludeOld ? " AND id <> OLD.id" : ""}) ` +
  `+ NEW.amount_minor > (SELECT amount_captured_minor FROM payment_intents WHERE id = NEW.intent_id) ` +
  `BEGIN SELECT RAISE(ABORT, 'refunds would exceed the captured amount of the payment intent'); END`;

const sqlite = [
  `CREATE TRIGGER payment_refunds_within_captured_insert BEFORE INSERT ON payment_refunds FOR EACH ROW ${beyondCaptured(false)}`,
  `CREATE TRIGGER payment_refunds_within_captured_update BEFORE UPDATE OF amount_minor, intent_id, status ON payment_refunds FOR EACH ROW ${beyondCaptured(true)}`,
];

/** Version 16 of the payment module. */
export const paymentsMigration0016RefundsWithinCaptured: Migration = {
  version: 16,
  name: "refunds_within_captured",
  sqlite,
  postgres,
};
