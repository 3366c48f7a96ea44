/**
 * Commerce migration 4 (SQLite only): the catalog search table is keyed by the product's own
 * integer `search_key`, so a search can probe the full-text index once per product while walking
 * the store's products in id order (`rowid = p.search_key AND … MATCH …`), as Postgres checks its
 * expression per product. Before, every search materialized its whole match list first, which for
 * a word most of a big catalog contains cost 0.4 s at 1M variants. The key is a stored column, not
 * the table's rowid, because VACUUM may renumber the rowids of a table without an INTEGER PRIMARY KEY.
 */
import type { Migration } from "../../Migration.js";

const body = (row: string): string => `${row}.title || ' ' || coalesce(${row}.description, '')`;

const sqlite = [
  `ALTER TABLE shop_products ADD COLUMN search_key INTEGER`,
  `UPDATE shop_products SET search_key = rowid`,
  `CREATE UNIQUE INDEX shop_products_search_key ON shop_products (search_key)`,
  `DROP TRIGGER shop_product_search_insert`,
  `DROP TRIGGER shop_product_search_update`,
  `DROP TABLE shop_product_search`,
  `CREATE VIRTUAL TABLE shop_product_search USING fts5(product_id UNINDEXED, body)`,
  `INSERT INTO shop_product_search (rowid, product_id, body) SELECT search_key, id, ${body("shop_products")} FROM shop_products`,
  // The next key after the greatest one given (serialized: SQLite has one writer).
  `CREATE TRIGGER shop_product_search_insert AFTER INSERT ON shop_products BEGIN ` +
    `UPDATE shop_products SET search_key = (SELECT coalesce(max(search_key), 0) + 1 FROM shop_products) WHERE rowid = new.rowid; ` +
    `INSERT INTO shop_product_search (rowid, product_id, body) SELECT search_key, id, ${body("shop_products")} FROM shop_products WHERE rowid = new.rowid; END`,
  `CREATE TRIGGER shop_product_search_update AFTER UPDATE OF title, description ON shop_products BEGIN ` +
    `DELETE FROM shop_product_search WHERE rowid = old.search_key; ` +
    `INSERT INTO shop_product_search (rowid, product_id, body) VALUES (old.search_key, new.id, ${body("new")}); END`,
];

export const commerceMigration0004SearchKeys: Migration = {
  version: 4,
  name: "search_keys",
  sqlite,
  postgres: [],
};
