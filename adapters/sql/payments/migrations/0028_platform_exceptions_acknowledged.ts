/**
 * Payments migration 28: a reconciliation exception of no merchant (a settlement row whose reference
 * we never issued) is resolved only by an acknowledgement (spec, Payment service: exceptions are
 * "resolved by humans with audited reversal or adjustment"; a reversal or an adjustment posts to a
 * merchant's ledger, and such an item has none). Moving one to resolved with another kind, or with a
 * ledger source, is refused, and so is an outcome of one that names a ledger source, whoever writes.
 */
import type { Migration } from "../../Migration.js";

const resolvedMessage = "a reconciliation exception of no merchant is resolved only by an acknowledgement";
const outcomeMessage = "a reconciliation exception of no merchant posts nothing to a ledger";

const postgres = [
  `CREATE FUNCTION payment_platform_exceptions_acknowledged() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.merchant_id IS NULL AND NEW.status = 'resolved' AND OLD.status = 'open'
        AND ((NEW.resolution->>'kind') IS DISTINCT FROM 'acknowledgement' OR (NEW.resolution->>'ledger_source') IS NOT NULL) THEN
       RAISE EXCEPTION '${resolvedMessage}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_platform_exceptions_acknowledged BEFORE UPDATE OF status, resolution ON payment_reconciliation_exceptions
   FOR EACH ROW EXECUTE FUNCTION payment_platform_exceptions_acknowledged()`,
  `CREATE FUNCTION payment_platform_outcomes_post_nothing() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.ledger_source IS NOT NULL
        AND (SELECT e.merchant_id FROM payment_reconciliation_exceptions e WHERE e.id = NEW.exception_id) IS NULL THEN
       RAISE EXCEPTION '${outcomeMessage}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_platform_outcomes_post_nothing BEFORE INSERT ON payment_reconciliation_outcomes
   FOR EACH ROW EXECUTE FUNCTION payment_platform_outcomes_post_nothing()`,
];

const sqlite = [
  `CREATE TRIGGER payment_platform_exceptions_acknowledged BEFORE UPDATE OF status, resolution ON payment_reconciliation_exceptions FOR EACH ROW ` +
    `WHEN NEW.merchant_id IS NULL AND NEW.status = 'resolved' AND OLD.status = 'open' ` +
    `AND (json_extract(NEW.resolution, '$.kind') IS NOT 'acknowledgement' OR json_extract(NEW.resolution, '$.ledger_source') IS NOT NULL) ` +
    `BEGIN SELECT RAISE(ABORT, '${resolvedMessage}'); END`,
  `CREATE TRIGGER payment_platform_outcomes_post_nothing BEFORE INSERT ON payment_reconciliation_outcomes FOR EACH ROW ` +
    `WHEN NEW.ledger_source IS NOT NULL AND (SELECT merchant_id FROM payment_reconciliation_exceptions WHERE id = NEW.exception_id) IS NULL ` +
    `BEGIN SELECT RAISE(ABORT, '${outcomeMessage}'); END`,
];

/** Version 28 of the payment module. */
export const paymentsMigration0028PlatformExceptionsAcknowledged: Migration = {
  version: 28,
  name: "platform_exceptions_acknowledged",
  sqlite,
  postgres,
};
