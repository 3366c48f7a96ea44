/**
 * Payments migration 24: risk holds (core/payments/model/RiskHold.ts). The database keeps the
 * rules too:
 *   - at most one active hold per intent (a partial unique index);
 *   - a hold belongs to its intent's merchant (composite reference; a trigger on SQLite);
 *   - a hold is never deleted and never edited, except released once: the three release
 *     fields go from null to set together, and nothing else changes;
 *   - no new provider attempt of an intent is stored while the intent has an active hold.
 * And an index for the intent's risk signals: its disputes by intent.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const table = (dialect: SqlDialect): string => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  return `CREATE TABLE payment_risk_holds (
    id ${text} PRIMARY KEY,
    intent_id ${text} NOT NULL REFERENCES payment_intents (id),
    merchant_id ${text} NOT NULL,
    reason ${text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    placed_by ${text} NOT NULL,
    placed_at ${time} NOT NULL,
    released_by ${text},
    release_reason ${text} CHECK (length(release_reason) BETWEEN 1 AND 500),
    released_at ${time},
    CHECK ((released_at IS NULL AND released_by IS NULL AND release_reason IS NULL)
        OR (released_at IS NOT NULL AND released_by IS NOT NULL AND release_reason IS NOT NULL))${
      dialect === "postgres" ? ",\n    FOREIGN KEY (intent_id, merchant_id) REFERENCES payment_intents (id, merchant_id)" : ""
    }
  )`;
};

const indexes = [
  `CREATE UNIQUE INDEX payment_risk_holds_one_active ON payment_risk_holds (intent_id) WHERE released_at IS NULL`,
  `CREATE INDEX payment_risk_holds_merchant ON payment_risk_holds (merchant_id, id)`,
  // The risk signals of an intent count its disputes (adapters/sql/payments/SqlRiskSignals.ts).
  `CREATE INDEX payment_disputes_intent ON payment_disputes (payment_intent_id, status)`,
];

const refusedEdit = "a risk hold is only released, once";
const heldAttempt = "no provider attempt while the payment intent is on hold";

const postgres = [
  table("postgres"),
  ...indexes,
  `CREATE FUNCTION payment_risk_hold_release_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' OR OLD.released_at IS NOT NULL OR NEW.released_at IS NULL
        OR NEW.id <> OLD.id OR NEW.intent_id <> OLD.intent_id OR NEW.merchant_id <> OLD.merchant_id
        OR NEW.reason <> OLD.reason OR NEW.placed_by <> OLD.placed_by OR NEW.placed_at <> OLD.placed_at THEN
       RAISE EXCEPTION '${refusedEdit}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_risk_holds_release_only BEFORE UPDATE OR DELETE ON payment_risk_holds FOR EACH ROW EXECUTE FUNCTION payment_risk_hold_release_only()`,
  `CREATE FUNCTION payment_attempt_not_held() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF EXISTS (SELECT 1 FROM payment_risk_holds WHERE intent_id = NEW.intent_id AND released_at IS NULL) THEN
       RAISE EXCEPTION '${heldAttempt}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_attempts_not_held BEFORE INSERT ON payment_attempts FOR EACH ROW EXECUTE FUNCTION payment_attempt_not_held()`,
];

const sqlite = [
  table("sqlite"),
  ...indexes,
  `CREATE TRIGGER payment_risk_holds_same_merchant BEFORE INSERT ON payment_risk_holds FOR EACH ROW ` +
    `WHEN NOT EXISTS (SELECT 1 FROM payment_intents WHERE id = NEW.intent_id AND merchant_id = NEW.merchant_id) ` +
    `BEGIN SELECT RAISE(ABORT, 'cross-merchant reference refused'); END`,
  `CREATE TRIGGER payment_risk_holds_release_only BEFORE UPDATE ON payment_risk_holds FOR EACH ROW ` +
    `WHEN OLD.released_at IS NOT NULL OR NEW.released_at IS NULL OR NEW.id IS NOT OLD.id OR NEW.intent_id IS NOT OLD.intent_id ` +
    `OR NEW.merchant_id IS NOT OLD.merchant_id OR NEW.reason IS NOT OLD.reason OR NEW.placed_by IS NOT OLD.placed_by ` +
    `OR NEW.placed_at IS NOT OLD.placed_at ` +
    `BEGIN SELECT RAISE(ABORT, '${refusedEdit}'); END`,
  `CREATE TRIGGER payment_risk_holds_no_delete BEFORE DELETE ON payment_risk_holds FOR EACH ROW ` +
    `BEGIN SELECT RAISE(ABORT, '${refusedEdit}'); END`,
  `CREATE TRIGGER payment_attempts_not_held BEFORE INSERT ON payment_attempts FOR EACH ROW ` +
    `WHEN EXISTS (SELECT 1 FROM payment_risk_holds WHERE intent_id = NEW.intent_id AND released_at IS NULL) ` +
    `BEGIN SELECT RAISE(ABORT, '${heldAttempt}'); END`,
];

/** Version 24 of the payment module. */
export const paymentsMigration0024RiskHolds: Migration = {
  version: 24,
  name: "risk_holds",
  sqlite,
  postgres,
};
