/**
 * Commerce migration 7: the quantity returned per order line, bounded by the line's quantity in
 * the database (spec: returns of eligible lines; a unit is never refunded or restocked twice).
 * Order lines are append-only, so the count lives beside them, one row per returned line; a
 * return claims its units with a conditional upsert (OrdersRepository.claimReturnedQuantity) and
 * the CHECK refuses any write past the line's quantity. Existing returns are counted in (capped
 * at the line's quantity, so a line returned twice before this migration does not stop it).
 */
import type { Migration } from "../../Migration.js";

const table = (text: string, int: string) =>
  `CREATE TABLE shop_order_line_returns (
    order_line_id ${text} PRIMARY KEY,
    store_id ${text} NOT NULL,
    order_id ${text} NOT NULL,
    line_quantity ${int} NOT NULL CHECK (line_quantity > 0),
    returned_quantity ${int} NOT NULL CHECK (returned_quantity >= 0 AND returned_quantity <= line_quantity),
    FOREIGN KEY (order_id, order_line_id) REFERENCES shop_order_lines (order_id, id),
    FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
  )`;

export const commerceMigration0007ReturnedQuantities: Migration = {
  version: 7,
  name: "returned_quantities",
  sqlite: [
    table("TEXT", "INTEGER"),
    `INSERT INTO shop_order_line_returns (order_line_id, store_id, order_id, line_quantity, returned_quantity)
     SELECT l.id, l.store_id, l.order_id, l.quantity, min(l.quantity, sum(json_extract(j.value, '$.quantity')))
     FROM shop_returns r, json_each(r.lines) j JOIN shop_order_lines l ON l.id = json_extract(j.value, '$.orderLineId')
     GROUP BY l.id, l.store_id, l.order_id, l.quantity`,
  ],
  postgres: [
    table("text", "integer"),
    `INSERT INTO shop_order_line_returns (order_line_id, store_id, order_id, line_quantity, returned_quantity)
     SELECT l.id, l.store_id, l.order_id, l.quantity, least(l.quantity, sum((j.value ->> 'quantity')::integer))
     FROM shop_returns r CROSS JOIN LATERAL jsonb_array_elements(r.lines) j JOIN shop_order_lines l ON l.id = j.value ->> 'orderLineId'
     GROUP BY l.id, l.store_id, l.order_id, l.quantity`,
  ],
};
