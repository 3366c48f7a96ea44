/**
 * Commerce migration 24: a shopper's free text is kept where guest retention can clear it (spec,
 * E-commerce: "guest data has retention"). The reason a customer or guest gives with a
 * cancellation goes into `shop_order_notes` (the append-only timeline entry refers to its note by
 * id), and a return's reason stays in `shop_returns.reason`, which may now be cleared: retention
 * sets both to NULL when it minimizes a guest order. The database allows nothing else: a note's
 * body and a return's reason change only to NULL, a note keeps its order and time, and neither is
 * deleted. Returns of guest orders minimized before this migration have their reasons cleared
 * here (timeline entries written before it keep their text: the timeline is append-only).
 * SQLite cannot drop a NOT NULL in place: shop_returns is rebuilt with its rows, index and
 * triggers (those of migration 23, the reason's rule now apart).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statuses = ["authorized", "received", "restocked", "quarantined", "refund_requested", "refund_failed", "closed"]
  .map((s) => `'${s}'`)
  .join(", ");

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

/** What a return returns never changes (its reason is cleared apart). */
const fixedColumns = ["id", "store_id", "order_id", "lines", "refund_minor", "created_at"];

const asksAgain = `OLD.status = 'refund_failed' AND NEW.status = 'refund_requested'`;
const attemptBroken = `((${asksAgain}) AND NEW.refund_attempt IS DISTINCT FROM OLD.refund_attempt + 1) OR (NOT (${asksAgain}) AND NEW.refund_attempt IS DISTINCT FROM OLD.refund_attempt)`;

/** A text may only be cleared: any other change of it is refused. */
const rewritten = (column: string) => `NEW.${column} IS NOT NULL AND NEW.${column} IS DISTINCT FROM OLD.${column}`;

const clearMinimizedGuestReturns = `UPDATE shop_returns SET reason = NULL
  WHERE order_id IN (SELECT id FROM shop_orders WHERE customer_id IS NULL AND minimized_at IS NOT NULL)`;

const notesTable = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE shop_order_notes (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      body ${c.text} CHECK (body IS NULL OR length(body) BETWEEN 1 AND 1000),
      created_at ${c.time} NOT NULL,
      cleared_at ${c.time},
      CHECK ((body IS NULL) = (cleared_at IS NOT NULL)),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `CREATE INDEX shop_order_notes_order ON shop_order_notes (order_id)`,
  ];
};

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  const columns = "id, store_id, order_id, status, reason, lines, refund_minor, version, created_at, updated_at, refund_attempt";
  const distinct = (s: string) => s.replaceAll("IS DISTINCT FROM", "IS NOT");
  return [
    ...notesTable("sqlite"),
    `CREATE TRIGGER shop_order_notes_never_deleted BEFORE DELETE ON shop_order_notes
     BEGIN SELECT RAISE(ABORT, 'shop_order_notes: notes are never deleted'); END`,
    `CREATE TRIGGER shop_order_notes_only_cleared BEFORE UPDATE ON shop_order_notes
     WHEN NEW.id IS NOT OLD.id OR NEW.store_id IS NOT OLD.store_id OR NEW.order_id IS NOT OLD.order_id OR NEW.created_at IS NOT OLD.created_at OR ${distinct(rewritten("body"))}
     BEGIN SELECT RAISE(ABORT, 'shop_order_notes: a note is only ever cleared'); END`,
    `CREATE TABLE shop_returns_next (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${statuses})),
      reason ${c.text} CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 1000),
      lines ${c.json} NOT NULL,
      refund_minor ${c.bigint} NOT NULL CHECK (refund_minor >= 0),
      version ${c.int} NOT NULL CHECK (version > 0),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      refund_attempt ${c.int} NOT NULL DEFAULT 1 CHECK (refund_attempt >= 1),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `INSERT INTO shop_returns_next (${columns}) SELECT ${columns} FROM shop_returns`,
    `DROP TABLE shop_returns`,
    `ALTER TABLE shop_returns_next RENAME TO shop_returns`,
    `CREATE INDEX shop_returns_order ON shop_returns (order_id)`,
    clearMinimizedGuestReturns,
    `CREATE TRIGGER shop_returns_never_deleted BEFORE DELETE ON shop_returns
     BEGIN SELECT RAISE(ABORT, 'shop_returns: returns are never deleted'); END`,
    `CREATE TRIGGER shop_returns_fixed BEFORE UPDATE ON shop_returns
     WHEN ${fixedColumns.map((col) => `NEW.${col} IS NOT OLD.${col}`).join(" OR ")} OR ${distinct(rewritten("reason"))}
     BEGIN SELECT RAISE(ABORT, 'shop_returns: what a return returns never changes'); END`,
    `CREATE TRIGGER shop_returns_status_moves BEFORE UPDATE OF status ON shop_returns
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_returns: this stage move is not allowed'); END`,
    `CREATE TRIGGER shop_returns_refund_attempts BEFORE UPDATE ON shop_returns
     WHEN ${distinct(attemptBroken)}
     BEGIN SELECT RAISE(ABORT, 'shop_returns: a refund attempt is added only when support asks again after a refusal'); END`,
  ];
};

const postgres = (): string[] => [
  ...notesTable("postgres"),
  `CREATE FUNCTION shop_order_notes_only_cleared() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       RAISE EXCEPTION 'shop_order_notes: notes are never deleted' USING ERRCODE = 'restrict_violation';
     END IF;
     IF NEW.id IS DISTINCT FROM OLD.id OR NEW.store_id IS DISTINCT FROM OLD.store_id OR NEW.order_id IS DISTINCT FROM OLD.order_id
        OR NEW.created_at IS DISTINCT FROM OLD.created_at OR ${rewritten("body")} THEN
       RAISE EXCEPTION 'shop_order_notes: a note is only ever cleared' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER shop_order_notes_only_cleared BEFORE UPDATE OR DELETE ON shop_order_notes FOR EACH ROW EXECUTE FUNCTION shop_order_notes_only_cleared()`,
  `ALTER TABLE shop_returns ALTER COLUMN reason DROP NOT NULL`,
  // The reason may now be cleared (migration 23's function refused any change of it).
  `CREATE OR REPLACE FUNCTION shop_returns_stage_moves() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${fixedColumns.map((col) => `NEW.${col} IS DISTINCT FROM OLD.${col}`).join(" OR ")} OR ${rewritten("reason")} THEN
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
  clearMinimizedGuestReturns,
];

export const commerceMigration0024ShopperTextsClearedByRetention: Migration = {
  version: 24,
  name: "shopper_texts_cleared_by_retention",
  sqlite: sqlite(),
  postgres: postgres(),
};
