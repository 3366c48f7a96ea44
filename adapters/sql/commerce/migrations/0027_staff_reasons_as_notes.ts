/**
 * Commerce migration 27: staff reasons leave the timeline and the stock ledger (docs/decisions.md:
 * free text on a guest order is personal data of the guest's order and follows guest retention;
 * the audit fact — who, when, which transition — stays). The reason of a cancellation request, a
 * return stage, a refund request and a fulfillment task's assignment or release becomes a note
 * (`note:<entry id>`) the entry refers to (`note_id`), cleared at once for guest orders already
 * minimized; a restock's stock adjustment `return <id>: <reason>` keeps `return <id>`. Both tables
 * are append-only: their triggers are lifted for these statements only, inside this migration's
 * transaction, and restored. From now on the database refuses a non-blank `reason` on those
 * timeline entries, and a restock adjustment naming more than its return.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";

/** The timeline entries whose reason is free text (`cancellation.deferred` names an error, and stays). */
const kinds = [
  "order.cancellation_requested",
  "return.received",
  "return.restocked",
  "return.quarantined",
  "return.refund_requested",
  "fulfillment.assigned",
  "fulfillment.released",
]
  .map((k) => `'${k}'`)
  .join(", ");

const clearMinimized = `UPDATE shop_order_notes
  SET body = NULL, cleared_at = (SELECT o.minimized_at FROM shop_orders o WHERE o.id = shop_order_notes.order_id)
  WHERE body IS NOT NULL AND order_id IN (SELECT id FROM shop_orders WHERE customer_id IS NULL AND minimized_at IS NOT NULL)`;

/** `reason` is a text with more than blanks. */
const sqliteReason = (detail: string) => `json_type(${detail}, '$.reason') = 'text' AND trim(json_extract(${detail}, '$.reason')) <> ''`;
const postgresReason = (detail: string) => `jsonb_typeof(${detail} -> 'reason') = 'string' AND trim(${detail} ->> 'reason') <> ''`;

const sqliteWhere = `kind IN (${kinds}) AND ${sqliteReason("detail")}`;
const postgresWhere = `kind IN (${kinds}) AND ${postgresReason("detail")}`;

/** The return a restock adjustment's reason names (`return <id>: ...`), and that reason reduced to it. */
const sqliteReturnId = (reason: string) => `substr(${reason}, 8, instr(${reason}, ': ') - 8)`;
// split_part: a negative substr length is an error on Postgres, whichever operand of AND runs first.
const postgresReturnId = (reason: string) => `split_part(substr(${reason}, 8), ': ', 1)`;
const quotesReturn = (reason: string, store: string, returnId: string) =>
  `${reason} LIKE 'return %: %' AND EXISTS (SELECT 1 FROM shop_returns r WHERE r.id = ${returnId} AND r.store_id = ${store})`;

const sqlite = (): string[] => [
  `DROP TRIGGER shop_order_timeline_append_only_update`,
  `INSERT INTO shop_order_notes (id, store_id, order_id, body, created_at, cleared_at)
   SELECT 'note:' || id, store_id, order_id, substr(json_extract(detail, '$.reason'), 1, 1000), created_at, NULL FROM shop_order_timeline WHERE ${sqliteWhere}`,
  `UPDATE shop_order_timeline SET detail = json_remove(json_set(detail, '$.note_id', 'note:' || id), '$.reason') WHERE ${sqliteWhere}`,
  ...appendOnlyTriggersSql("sqlite", "shop_order_timeline"),
  clearMinimized,
  `DROP TRIGGER shop_stock_adjustments_append_only_update`,
  `UPDATE shop_stock_adjustments SET reason = 'return ' || ${sqliteReturnId("reason")}
   WHERE ${quotesReturn("reason", "shop_stock_adjustments.store_id", sqliteReturnId("shop_stock_adjustments.reason"))}`,
  ...appendOnlyTriggersSql("sqlite", "shop_stock_adjustments"),
  `CREATE TRIGGER shop_order_timeline_reason_in_notes BEFORE INSERT ON shop_order_timeline
   WHEN NEW.kind IN (${kinds}) AND ${sqliteReason("NEW.detail")}
   BEGIN SELECT RAISE(ABORT, 'shop_order_timeline: a reason is kept as a note'); END`,
  `CREATE TRIGGER shop_stock_adjustments_restock_names_return BEFORE INSERT ON shop_stock_adjustments
   WHEN ${quotesReturn("NEW.reason", "NEW.store_id", sqliteReturnId("NEW.reason"))}
   BEGIN SELECT RAISE(ABORT, 'shop_stock_adjustments: a restock names only its return'); END`,
];

const postgres = (): string[] => [
  `ALTER TABLE shop_order_timeline DISABLE TRIGGER shop_order_timeline_append_only`,
  `INSERT INTO shop_order_notes (id, store_id, order_id, body, created_at, cleared_at)
   SELECT 'note:' || id, store_id, order_id, left(detail ->> 'reason', 1000), created_at, NULL FROM shop_order_timeline WHERE ${postgresWhere}`,
  `UPDATE shop_order_timeline SET detail = (detail - 'reason') || jsonb_build_object('note_id', 'note:' || id) WHERE ${postgresWhere}`,
  `ALTER TABLE shop_order_timeline ENABLE TRIGGER shop_order_timeline_append_only`,
  clearMinimized,
  `ALTER TABLE shop_stock_adjustments DISABLE TRIGGER shop_stock_adjustments_append_only`,
  `UPDATE shop_stock_adjustments SET reason = 'return ' || ${postgresReturnId("reason")}
   WHERE ${quotesReturn("reason", "shop_stock_adjustments.store_id", postgresReturnId("shop_stock_adjustments.reason"))}`,
  `ALTER TABLE shop_stock_adjustments ENABLE TRIGGER shop_stock_adjustments_append_only`,
  `ALTER TABLE shop_order_timeline ADD CONSTRAINT shop_order_timeline_reason_in_notes CHECK (NOT (kind IN (${kinds}) AND ${postgresReason("detail")}))`,
  `CREATE FUNCTION shop_stock_adjustments_restock_names_return() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${quotesReturn("NEW.reason", "NEW.store_id", postgresReturnId("NEW.reason"))} THEN
       RAISE EXCEPTION 'shop_stock_adjustments: a restock names only its return' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER shop_stock_adjustments_restock_names_return BEFORE INSERT ON shop_stock_adjustments FOR EACH ROW EXECUTE FUNCTION shop_stock_adjustments_restock_names_return()`,
];

export const commerceMigration0027StaffReasonsAsNotes: Migration = {
  version: 27,
  name: "staff_reasons_as_notes",
  sqlite: sqlite(),
  postgres: postgres(),
};
