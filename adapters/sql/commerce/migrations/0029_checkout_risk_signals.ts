/**
 * Commerce migration 29: the risk signals of checkouts (spec, commerce Limits: "Rate limits apply
 * by account, IP and checkout risk signals"; security audit S4). Each checkout records the keyed
 * digests of its client's network and its e-mail (core/commerce/RiskSignals.ts); a declined
 * checkout marks them `declined_at`, and checkout counts the declines of the last hour per digest
 * (`shop_checkout_risk_declines`). The database keeps what the bound relies on: a signal is a
 * digest (64 lowercase hex characters, never an address or an e-mail), a decline is marked once
 * and never after the checkout it belongs to, and nothing else of a row changes. Retention
 * deletes rows a day after their checkout (`shop_checkout_risk_signals_recorded`).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const table = (dialect: SqlDialect): string => {
  const c = columnTypes(dialect);
  const isDigest = dialect === "postgres" ? `signal ~ '^[0-9a-f]{64}$'` : `length(signal) = 64 AND signal NOT GLOB '*[^0-9a-f]*'`;
  return `CREATE TABLE shop_checkout_risk_signals (
    order_id ${c.text} NOT NULL REFERENCES shop_orders (id),
    signal ${c.text} NOT NULL CHECK (${isDigest}),
    recorded_at ${c.time} NOT NULL,
    declined_at ${c.time},
    PRIMARY KEY (order_id, signal),
    CHECK (declined_at IS NULL OR declined_at >= recorded_at)
  )`;
};

const indexes = [
  `CREATE INDEX shop_checkout_risk_declines ON shop_checkout_risk_signals (signal, declined_at) WHERE declined_at IS NOT NULL`,
  `CREATE INDEX shop_checkout_risk_signals_recorded ON shop_checkout_risk_signals (recorded_at)`,
];

export const commerceMigration0029CheckoutRiskSignals: Migration = {
  version: 29,
  name: "checkout_risk_signals",
  sqlite: [
    table("sqlite"),
    ...indexes,
    `CREATE TRIGGER shop_checkout_risk_signals_declined_once BEFORE UPDATE ON shop_checkout_risk_signals
     WHEN NEW.order_id IS NOT OLD.order_id OR NEW.signal IS NOT OLD.signal OR NEW.recorded_at IS NOT OLD.recorded_at
       OR OLD.declined_at IS NOT NULL
     BEGIN SELECT RAISE(ABORT, 'shop_checkout_risk_signals: a signal is marked declined once and never changes otherwise'); END`,
  ],
  postgres: [
    table("postgres"),
    ...indexes,
    `CREATE FUNCTION shop_checkout_risk_signals_declined_once() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.order_id IS DISTINCT FROM OLD.order_id OR NEW.signal IS DISTINCT FROM OLD.signal
          OR NEW.recorded_at IS DISTINCT FROM OLD.recorded_at OR OLD.declined_at IS NOT NULL THEN
         RAISE EXCEPTION 'shop_checkout_risk_signals: a signal is marked declined once and never changes otherwise' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_checkout_risk_signals_declined_once BEFORE UPDATE ON shop_checkout_risk_signals
     FOR EACH ROW EXECUTE FUNCTION shop_checkout_risk_signals_declined_once()`,
  ],
};
