/**
 * Commerce migration 31: a checkout's risk signals are settled when its payment is answered
 * (docs/known-gaps.md, E-commerce: the in-flight count read every undeclined checkout of a signal
 * within the hour, joined to its payment; for a busy shared network, every successful checkout of
 * its hour). `settled_at` is set by the database in the transaction that records the answer: a
 * move of `shop_order_payments.status` out of `authorizing`/`unknown` settles the order's signals
 * (`shop_order_payments_settle_risk_signals`), whoever writes it. The in-flight count then seeks
 * `shop_checkout_risk_unsettled` (`WHERE settled_at IS NULL`), which holds only checkouts in
 * flight; `shop_checkout_risk_undecided` (migration 30), which served it, is dropped. A signal is
 * settled once, never before its checkout, and its other columns keep migration 29's rule.
 * Existing rows whose payment was answered are settled at their decline, or else at their
 * payment's last write (the answer's own time is not kept), never before their checkout.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

/** Payment states whose authorization has no answer yet (core/commerce/CheckoutRisk.ts: in flight). */
const unresolved = `('authorizing', 'unknown')`;

const later = (dialect: SqlDialect, a: string, b: string) => (dialect === "postgres" ? `GREATEST(${a}, ${b})` : `max(${a}, ${b})`);

/** Rows of an answered payment (or none) settle at their decline, else at the payment's last write. */
const settleAnswered = (dialect: SqlDialect) => `UPDATE shop_checkout_risk_signals SET settled_at = COALESCE(
    declined_at,
    (SELECT ${later(dialect, "p.updated_at", "shop_checkout_risk_signals.recorded_at")} FROM shop_order_payments p WHERE p.order_id = shop_checkout_risk_signals.order_id),
    recorded_at
  )
  WHERE NOT EXISTS (SELECT 1 FROM shop_order_payments p WHERE p.order_id = shop_checkout_risk_signals.order_id AND p.status IN ${unresolved})`;

/**
 * In the answer's transaction, the order's signals settle at the answer, never before their
 * checkout. Chosen by order alone (the primary key's prefix): with `settled_at IS NULL` a planner
 * may walk the partial index of every unsettled row instead. A settled row keeps its time.
 */
const settleOrderSignals = (dialect: SqlDialect) =>
  `UPDATE shop_checkout_risk_signals SET settled_at = COALESCE(settled_at, ${later(dialect, "NEW.updated_at", "recorded_at")}) WHERE order_id = NEW.order_id`;

const indexes = [
  `DROP INDEX shop_checkout_risk_undecided`,
  `CREATE INDEX shop_checkout_risk_unsettled ON shop_checkout_risk_signals (signal, recorded_at) WHERE settled_at IS NULL`,
];

const settledAfterCheckout = `settled_at IS NULL OR settled_at >= recorded_at`;

export const commerceMigration0031CheckoutRiskSettled: Migration = {
  version: 31,
  name: "checkout_risk_settled",
  sqlite: [
    `DROP TRIGGER shop_checkout_risk_signals_declined_once`,
    `ALTER TABLE shop_checkout_risk_signals ADD COLUMN settled_at ${columnTypes("sqlite").time} CHECK (${settledAfterCheckout})`,
    settleAnswered("sqlite"),
    `CREATE TRIGGER shop_checkout_risk_signals_marked_once BEFORE UPDATE ON shop_checkout_risk_signals
     WHEN NEW.order_id IS NOT OLD.order_id OR NEW.signal IS NOT OLD.signal OR NEW.recorded_at IS NOT OLD.recorded_at
       OR (OLD.declined_at IS NOT NULL AND NEW.declined_at IS NOT OLD.declined_at)
       OR (OLD.settled_at IS NOT NULL AND NEW.settled_at IS NOT OLD.settled_at)
     BEGIN SELECT RAISE(ABORT, 'shop_checkout_risk_signals: a signal is marked declined once and settled once, and never changes otherwise'); END`,
    `CREATE TRIGGER shop_order_payments_settle_risk_signals AFTER UPDATE OF status ON shop_order_payments
     WHEN OLD.status IN ${unresolved} AND NEW.status NOT IN ${unresolved}
     BEGIN
       ${settleOrderSignals("sqlite")};
     END`,
    ...indexes,
  ],
  postgres: [
    `DROP TRIGGER shop_checkout_risk_signals_declined_once ON shop_checkout_risk_signals`,
    `DROP FUNCTION shop_checkout_risk_signals_declined_once()`,
    `ALTER TABLE shop_checkout_risk_signals ADD COLUMN settled_at ${columnTypes("postgres").time},
       ADD CONSTRAINT shop_checkout_risk_signals_settled_after_checkout CHECK (${settledAfterCheckout})`,
    settleAnswered("postgres"),
    `CREATE FUNCTION shop_checkout_risk_signals_marked_once() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.order_id IS DISTINCT FROM OLD.order_id OR NEW.signal IS DISTINCT FROM OLD.signal
          OR NEW.recorded_at IS DISTINCT FROM OLD.recorded_at
          OR (OLD.declined_at IS NOT NULL AND NEW.declined_at IS DISTINCT FROM OLD.declined_at)
          OR (OLD.settled_at IS NOT NULL AND NEW.settled_at IS DISTINCT FROM OLD.settled_at) THEN
         RAISE EXCEPTION 'shop_checkout_risk_signals: a signal is marked declined once and settled once, and never changes otherwise' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_checkout_risk_signals_marked_once BEFORE UPDATE ON shop_checkout_risk_signals
     FOR EACH ROW EXECUTE FUNCTION shop_checkout_risk_signals_marked_once()`,
    `CREATE FUNCTION shop_order_payments_settle_risk_signals() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       ${settleOrderSignals("postgres")};
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER shop_order_payments_settle_risk_signals AFTER UPDATE OF status ON shop_order_payments
     FOR EACH ROW WHEN (OLD.status IN ${unresolved} AND NEW.status NOT IN ${unresolved})
     EXECUTE FUNCTION shop_order_payments_settle_risk_signals()`,
    ...indexes,
  ],
};
