/**
 * Commerce migration 23: a refund the payment refuses has a stage of its own (spec, E-commerce
 * States: return stages; "nothing is lost on failure"). A return moves refund_requested →
 * refund_failed when the payment refuses its refund, and refund_failed → refund_requested when
 * support asks again; `refund_attempt` (1 at first) names which refund is requested, goes up by
 * one with exactly that move and never otherwise, so each attempt is sent under its own payment
 * key and a second request of the same attempt finds no refused return to move. The stage list
 * and the moves of migration 18 are replaced by these. SQLite cannot change a CHECK in place: the
 * table is rebuilt with its rows, index and triggers (dropping a table fires no delete trigger).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const statuses = ["authorized", "received", "restocked", "quarantined", "refund_requested", "refund_failed", "closed"];

const moves = [
  "authorized>received",
  "received>restocked",
  "received>quarantined",
  "restocked>refund_requested",
  "quarantined>refund_requested",
  "refund_requested>closed",
  "refund_requested>refund_failed",
  "refund_failed>refund_requested",
]
  .map((m) => `'${m}'`)
  .join(", ");

const list = (values: ReadonlyArray<string>): string => values.map((v) => `'${v}'`).join(", ");

const fixedColumns = ["id", "store_id", "order_id", "reason", "lines", "refund_minor", "created_at"];

/** The move that asks again, and the attempt rule: +1 with it, unchanged otherwise. */
const asksAgain = `OLD.status = 'refund_failed' AND NEW.status = 'refund_requested'`;
const attemptBroken = `((${asksAgain}) AND NEW.refund_attempt IS DISTINCT FROM OLD.refund_attempt + 1) OR (NOT (${asksAgain}) AND NEW.refund_attempt IS DISTINCT FROM OLD.refund_attempt)`;

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  const columns = "id, store_id, order_id, status, reason, lines, refund_minor, version, created_at, updated_at";
  return [
    `CREATE TABLE shop_returns_next (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${list(statuses)})),
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
      lines ${c.json} NOT NULL,
      refund_minor ${c.bigint} NOT NULL CHECK (refund_minor >= 0),
      version ${c.int} NOT NULL CHECK (version > 0),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      refund_attempt ${c.int} NOT NULL DEFAULT 1 CHECK (refund_attempt >= 1),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `INSERT INTO shop_returns_next (${columns}, refund_attempt) SELECT ${columns}, 1 FROM shop_returns`,
    `DROP TABLE shop_returns`,
    `ALTER TABLE shop_returns_next RENAME TO shop_returns`,
    `CREATE INDEX shop_returns_order ON shop_returns (order_id)`,
    `CREATE TRIGGER shop_returns_never_deleted BEFORE DELETE ON shop_returns
     BEGIN SELECT RAISE(ABORT, 'shop_returns: returns are never deleted'); END`,
    `CREATE TRIGGER shop_returns_fixed BEFORE UPDATE ON shop_returns
     WHEN ${fixedColumns.map((col) => `NEW.${col} IS NOT OLD.${col}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'shop_returns: what a return returns never changes'); END`,
    `CREATE TRIGGER shop_returns_status_moves BEFORE UPDATE OF status ON shop_returns
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_returns: this stage move is not allowed'); END`,
    `CREATE TRIGGER shop_returns_refund_attempts BEFORE UPDATE ON shop_returns
     WHEN ${attemptBroken.replaceAll("IS DISTINCT FROM", "IS NOT")}
     BEGIN SELECT RAISE(ABORT, 'shop_returns: a refund attempt is added only when support asks again after a refusal'); END`,
  ];
};

const postgres = (): string[] => {
  const c = columnTypes("postgres");
  return [
    `ALTER TABLE shop_returns ADD COLUMN refund_attempt ${c.int} NOT NULL DEFAULT 1 CHECK (refund_attempt >= 1)`,
    `ALTER TABLE shop_returns DROP CONSTRAINT shop_returns_status_check`,
    `ALTER TABLE shop_returns ADD CONSTRAINT shop_returns_status_check CHECK (status IN (${list(statuses)}))`,
    `CREATE OR REPLACE FUNCTION shop_returns_stage_moves() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${fixedColumns.map((col) => `NEW.${col} IS DISTINCT FROM OLD.${col}`).join(" OR ")} THEN
         RAISE EXCEPTION 'shop_returns: what a return returns never changes' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'shop_returns: this stage move is not allowed' USING ERRCODE = 'check_violation';
       END IF;
       IF ${attemptBroken} THEN
         RAISE EXCEPTION 'shop_returns: a refund attempt is added only when support asks again after a refusal' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
  ];
};

export const commerceMigration0023ReturnRefundFailed: Migration = {
  version: 23,
  name: "return_refund_failed",
  sqlite: sqlite(),
  postgres: postgres(),
};
