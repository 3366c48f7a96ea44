/**
 * Commerce migration 26: shopper texts written on the timeline before migration 24 are moved off
 * it (spec, E-commerce: "guest data has retention"). A customer's or guest's cancellation reason
 * (`order.cancellation_requested` by a non-staff actor) becomes a note (`note:<entry id>`) that the
 * entry refers to (`note_id`), and `return.authorized` entries drop their copy of the return's
 * reason (the return holds it). Notes of guest orders already minimized are cleared at once. The
 * timeline is append-only: its update trigger is lifted for these statements only, inside this
 * migration's transaction, and restored.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";

const clearMinimized = `UPDATE shop_order_notes
  SET body = NULL, cleared_at = (SELECT o.minimized_at FROM shop_orders o WHERE o.id = shop_order_notes.order_id)
  WHERE body IS NOT NULL AND order_id IN (SELECT id FROM shop_orders WHERE customer_id IS NULL AND minimized_at IS NOT NULL)`;

const shopperCancellation = (reasonIsText: string, reason: string) =>
  `kind = 'order.cancellation_requested' AND actor_id NOT LIKE 'staff:%' AND ${reasonIsText} AND length(${reason}) > 0`;

const sqliteWhere = shopperCancellation(`json_type(detail, '$.reason') = 'text'`, `json_extract(detail, '$.reason')`);
const postgresWhere = shopperCancellation(`jsonb_typeof(detail -> 'reason') = 'string'`, `detail ->> 'reason'`);

const sqlite = (): string[] => [
  `DROP TRIGGER shop_order_timeline_append_only_update`,
  `INSERT INTO shop_order_notes (id, store_id, order_id, body, created_at, cleared_at)
   SELECT 'note:' || id, store_id, order_id, substr(json_extract(detail, '$.reason'), 1, 1000), created_at, NULL FROM shop_order_timeline WHERE ${sqliteWhere}`,
  `UPDATE shop_order_timeline SET detail = json_remove(json_set(detail, '$.note_id', 'note:' || id), '$.reason') WHERE ${sqliteWhere}`,
  `UPDATE shop_order_timeline SET detail = json_remove(detail, '$.reason') WHERE kind = 'return.authorized' AND json_type(detail, '$.reason') IS NOT NULL`,
  ...appendOnlyTriggersSql("sqlite", "shop_order_timeline"),
  clearMinimized,
];

const postgres = (): string[] => [
  `ALTER TABLE shop_order_timeline DISABLE TRIGGER shop_order_timeline_append_only`,
  `INSERT INTO shop_order_notes (id, store_id, order_id, body, created_at, cleared_at)
   SELECT 'note:' || id, store_id, order_id, left(detail ->> 'reason', 1000), created_at, NULL FROM shop_order_timeline WHERE ${postgresWhere}`,
  `UPDATE shop_order_timeline SET detail = (detail - 'reason') || jsonb_build_object('note_id', 'note:' || id) WHERE ${postgresWhere}`,
  `UPDATE shop_order_timeline SET detail = detail - 'reason' WHERE kind = 'return.authorized' AND detail -> 'reason' IS NOT NULL`,
  `ALTER TABLE shop_order_timeline ENABLE TRIGGER shop_order_timeline_append_only`,
  clearMinimized,
];

export const commerceMigration0026ShopperTextsOffTheTimeline: Migration = {
  version: 26,
  name: "shopper_texts_off_the_timeline",
  sqlite: sqlite(),
  postgres: postgres(),
};
