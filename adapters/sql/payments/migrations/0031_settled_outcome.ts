/**
 * Payments migration 31: the settlement of a `settle_intent` exception is an outcome of the
 * exception (spec, Payment service: every step of the mismatch workflow is an immutable, audited
 * record). `payment_reconciliation_outcomes.action` allows `settled` besides `opened` and
 * `resolved` (still one of each per exception), and a `settled` outcome is refused unless its
 * exception is resolved with `settle_intent` or `refund_stale_capture` (the kinds carried out after
 * commit). SQLite cannot change a CHECK in place: the table is
 * rebuilt with its rows and its triggers (append-only, migration 28's; dropping a table fires no
 * delete trigger).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const actions = "'opened', 'resolved', 'settled'";
const settledMessage = "a settled outcome needs its exception resolved with settle_intent or refund_stale_capture";
const platformMessage = "a reconciliation exception of no merchant posts nothing to a ledger";
const columns = "id, exception_id, merchant_id, action, actor, reason, ledger_source, data, created_at";

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  return [
    `CREATE TABLE payment_reconciliation_outcomes_next (
      id ${c.text} PRIMARY KEY,
      exception_id ${c.text} NOT NULL REFERENCES payment_reconciliation_exceptions (id),
      merchant_id ${c.text},
      action ${c.text} NOT NULL CHECK (action IN (${actions})),
      actor ${c.text} NOT NULL CHECK (length(actor) > 0),
      reason ${c.text} NOT NULL CHECK (length(reason) > 0),
      ledger_source ${c.text} REFERENCES payment_ledger_transactions (source),
      data ${c.json} NOT NULL,
      created_at ${c.time} NOT NULL,
      UNIQUE (exception_id, action)
    )`,
    `INSERT INTO payment_reconciliation_outcomes_next (${columns}) SELECT ${columns} FROM payment_reconciliation_outcomes`,
    `DROP TABLE payment_reconciliation_outcomes`,
    `ALTER TABLE payment_reconciliation_outcomes_next RENAME TO payment_reconciliation_outcomes`,
    ...appendOnlyTriggersSql("sqlite", "payment_reconciliation_outcomes"),
    `CREATE TRIGGER payment_platform_outcomes_post_nothing BEFORE INSERT ON payment_reconciliation_outcomes FOR EACH ROW ` +
      `WHEN NEW.ledger_source IS NOT NULL AND (SELECT merchant_id FROM payment_reconciliation_exceptions WHERE id = NEW.exception_id) IS NULL ` +
      `BEGIN SELECT RAISE(ABORT, '${platformMessage}'); END`,
    `CREATE TRIGGER payment_reconciliation_outcomes_settled_after_resolution BEFORE INSERT ON payment_reconciliation_outcomes FOR EACH ROW ` +
      `WHEN NEW.action = 'settled' AND NOT EXISTS (SELECT 1 FROM payment_reconciliation_exceptions e WHERE e.id = NEW.exception_id ` +
      `AND e.status = 'resolved' AND json_extract(e.resolution, '$.kind') IN ('settle_intent', 'refund_stale_capture')) ` +
      `BEGIN SELECT RAISE(ABORT, '${settledMessage}'); END`,
  ];
};

const postgres = [
  `ALTER TABLE payment_reconciliation_outcomes DROP CONSTRAINT payment_reconciliation_outcomes_action_check`,
  `ALTER TABLE payment_reconciliation_outcomes ADD CONSTRAINT payment_reconciliation_outcomes_action_check CHECK (action IN (${actions}))`,
  `CREATE FUNCTION payment_reconciliation_outcomes_settled_after_resolution() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.action = 'settled' AND NOT EXISTS (SELECT 1 FROM payment_reconciliation_exceptions e WHERE e.id = NEW.exception_id
        AND e.status = 'resolved' AND (e.resolution->>'kind') IN ('settle_intent', 'refund_stale_capture')) THEN
       RAISE EXCEPTION '${settledMessage}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_reconciliation_outcomes_settled_after_resolution BEFORE INSERT ON payment_reconciliation_outcomes
   FOR EACH ROW EXECUTE FUNCTION payment_reconciliation_outcomes_settled_after_resolution()`,
];

/** Version 31 of the payment module. */
export const paymentsMigration0031SettledOutcome: Migration = {
  version: 31,
  name: "settled_outcome",
  sqlite: sqlite(),
  postgres,
};
