/**
 * Delivery migration 17: support's refunds of a delivered order (spec: "Every manual reassignment,
 * refund and state override records actor and reason"; Authentication 6). One row per refund in
 * dl_refunds, with actor and reason. The database holds the money rule: a refund is inserted
 * `pending`, only on an order whose payment is captured, in the order's currency, and only while
 * the order's refunds that did not fail stay within the captured amount (the order's total). On
 * Postgres the insert trigger takes the order's workflow row lock before it sums (the command
 * already holds it), so two refunds racing on parallel connections cannot both pass. A refund
 * moves once, `pending → refunded | failed`, keeps everything else, and is never deleted.
 * dl_payment_replays also audits replays of the refund step (SQLite rebuilds it to widen the CHECK).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const steps = `('capture', 'void', 'resolve', 'release', 'refund')`;

const refundsTable = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_refunds (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      amount_minor ${c.bigint} NOT NULL CHECK (amount_minor > 0),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      status ${c.text} NOT NULL CHECK (status IN ('pending', 'refunded', 'failed')),
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      failure ${c.text},
      created_at ${c.time} NOT NULL,
      settled_at ${c.time},
      CHECK ((status = 'pending') = (settled_at IS NULL)),
      CHECK ((status = 'failed') = (failure IS NOT NULL))
    )`,
    `CREATE INDEX dl_refunds_order ON dl_refunds (order_id, id)`,
    `CREATE INDEX dl_refunds_pending ON dl_refunds (created_at) WHERE status = 'pending'`,
  ];
};

const notCaptured = `(SELECT payment_state FROM dl_restaurant_orders WHERE order_id = NEW.order_id) IS NOT 'captured'`;
const otherCurrency = `NEW.currency IS NOT (SELECT currency FROM dl_orders WHERE id = NEW.order_id)`;
const aboveCaptured = `(SELECT coalesce(sum(amount_minor), 0) FROM dl_refunds WHERE order_id = NEW.order_id AND status <> 'failed') + NEW.amount_minor > (SELECT total_minor FROM dl_orders WHERE id = NEW.order_id)`;
const changedRefund = `NEW.id IS NOT OLD.id OR NEW.order_id IS NOT OLD.order_id OR NEW.amount_minor IS NOT OLD.amount_minor OR NEW.currency IS NOT OLD.currency OR NEW.actor_id IS NOT OLD.actor_id OR NEW.reason IS NOT OLD.reason OR NEW.created_at IS NOT OLD.created_at`;
const notOnce = `OLD.status <> 'pending' OR NEW.status NOT IN ('refunded', 'failed')`;

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  const columns = "id, job_id, step, order_id, quote_id, actor_id, reason, at";
  return [
    ...refundsTable("sqlite"),
    `CREATE TRIGGER dl_refunds_within_captured BEFORE INSERT ON dl_refunds BEGIN
       SELECT RAISE(ABORT, 'dl_refunds: a refund starts pending') WHERE NEW.status <> 'pending';
       SELECT RAISE(ABORT, 'dl_refunds: the order''s payment is not captured') WHERE ${notCaptured};
       SELECT RAISE(ABORT, 'dl_refunds: a refund is in the order''s currency') WHERE ${otherCurrency};
       SELECT RAISE(ABORT, 'dl_refunds: refunds above the captured amount') WHERE ${aboveCaptured};
     END`,
    `CREATE TRIGGER dl_refunds_settled_once BEFORE UPDATE ON dl_refunds WHEN ${notOnce} OR ${changedRefund} ` +
      `BEGIN SELECT RAISE(ABORT, 'dl_refunds: a refund moves once, pending to refunded or failed, and keeps the rest'); END`,
    `CREATE TRIGGER dl_refunds_kept BEFORE DELETE ON dl_refunds BEGIN SELECT RAISE(ABORT, 'dl_refunds: refunds are never deleted'); END`,
    `CREATE TABLE dl_payment_replays_next (
      id ${c.text} PRIMARY KEY,
      job_id ${c.text} NOT NULL,
      step ${c.text} NOT NULL CHECK (step IN ${steps}),
      order_id ${c.text},
      quote_id ${c.text},
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      at ${c.time} NOT NULL
    )`,
    `INSERT INTO dl_payment_replays_next (${columns}) SELECT ${columns} FROM dl_payment_replays`,
    `DROP TABLE dl_payment_replays`,
    `ALTER TABLE dl_payment_replays_next RENAME TO dl_payment_replays`,
    `CREATE INDEX dl_payment_replays_job ON dl_payment_replays (job_id, at)`,
    ...appendOnlyTriggersSql("sqlite", "dl_payment_replays"),
  ];
};

const postgres = (): string[] => [
  ...refundsTable("postgres"),
  `CREATE FUNCTION dl_refunds_within_captured() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE state text; captured bigint; order_currency text; refunded bigint;
   BEGIN
     -- The order's workflow row lock first: refunds of one order are summed one transaction at a time.
     SELECT payment_state INTO state FROM dl_restaurant_orders WHERE order_id = NEW.order_id FOR UPDATE;
     IF NEW.status <> 'pending' THEN
       RAISE EXCEPTION 'dl_refunds: a refund starts pending' USING ERRCODE = 'check_violation';
     END IF;
     IF state IS DISTINCT FROM 'captured' THEN
       RAISE EXCEPTION 'dl_refunds: the payment of order % is not captured', NEW.order_id USING ERRCODE = 'check_violation';
     END IF;
     SELECT total_minor, currency INTO captured, order_currency FROM dl_orders WHERE id = NEW.order_id;
     IF NEW.currency IS DISTINCT FROM order_currency THEN
       RAISE EXCEPTION 'dl_refunds: a refund is in the order''s currency' USING ERRCODE = 'check_violation';
     END IF;
     SELECT coalesce(sum(amount_minor), 0) INTO refunded FROM dl_refunds WHERE order_id = NEW.order_id AND status <> 'failed';
     IF refunded + NEW.amount_minor > captured THEN
       RAISE EXCEPTION 'dl_refunds: refunds of order % above the captured amount', NEW.order_id USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_refunds_within_captured BEFORE INSERT ON dl_refunds FOR EACH ROW EXECUTE FUNCTION dl_refunds_within_captured()`,
  `CREATE FUNCTION dl_refunds_settled_once() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       RAISE EXCEPTION 'dl_refunds: refunds are never deleted' USING ERRCODE = 'restrict_violation';
     END IF;
     IF ${notOnce.replaceAll("IS NOT", "IS DISTINCT FROM")} OR ${changedRefund.replaceAll("IS NOT", "IS DISTINCT FROM")} THEN
       RAISE EXCEPTION 'dl_refunds: a refund moves once, pending to refunded or failed, and keeps the rest' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_refunds_settled_once BEFORE UPDATE OR DELETE ON dl_refunds FOR EACH ROW EXECUTE FUNCTION dl_refunds_settled_once()`,
  `ALTER TABLE dl_payment_replays DROP CONSTRAINT dl_payment_replays_step_check`,
  `ALTER TABLE dl_payment_replays ADD CONSTRAINT dl_payment_replays_step_check CHECK (step IN ${steps})`,
];

export const deliveryMigration0017Refunds: Migration = {
  version: 17,
  name: "refunds",
  sqlite: sqlite(),
  postgres: postgres(),
};
