/**
 * Commerce migration 6 (SQLite only): the catalog search index answers a page by itself. Each
 * product's row in `shop_product_search` also holds its store, as one token of a column of its
 * own (`store`: the user's words are matched in `body` only, so they never match it), and the
 * index keeps prefix indexes for prefixes of 2 to 6 characters. A search page is then the index's
 * matches for "this store AND these words", read in rowid (`search_key`) order from the cursor's
 * key, 51 at a time: FTS5 streams them without building the whole match list.
 *
 * Before, a search walked the store's products in id order and tested each against the whole
 * match list, built on every request: ~30 ms for a word in all 250,000 products of a store, and
 * as much for a rare word (the walk covered the whole store to find its few products).
 */
import type { Migration } from "../../Migration.js";

const body = (row: string): string => `${row}.title || ' ' || coalesce(${row}.description, '')`;

/** The store's token: `s` and the hex of its id, one token whatever characters the id has (storeSearchToken in SqlCatalogRepository.ts). */
const store = (row: string): string => `'s' || lower(hex(${row}.store_id))`;

const sqlite = [
  `DROP TRIGGER shop_product_search_insert`,
  `DROP TRIGGER shop_product_search_update`,
  `DROP TABLE shop_product_search`,
  `CREATE VIRTUAL TABLE shop_product_search USING fts5(store, body, prefix = '2 3 4 5 6')`,
  `INSERT INTO shop_product_search (rowid, store, body) SELECT search_key, ${store("shop_products")}, ${body("shop_products")} FROM shop_products`,
  // The next key after the greatest one given (serialized: SQLite has one writer).
  `CREATE TRIGGER shop_product_search_insert AFTER INSERT ON shop_products BEGIN ` +
    `UPDATE shop_products SET search_key = (SELECT coalesce(max(search_key), 0) + 1 FROM shop_products) WHERE rowid = new.rowid; ` +
    `INSERT INTO shop_product_search (rowid, store, body) SELECT search_key, ${store("shop_products")}, ${body("shop_products")} FROM shop_products WHERE rowid = new.rowid; END`,
  `CREATE TRIGGER shop_product_search_update AFTER UPDATE OF title, description ON shop_products BEGIN ` +
    `DELETE FROM shop_product_search WHERE rowid = old.search_key; ` +
    `INSERT INTO shop_product_search (rowid, store, body) VALUES (old.search_key, ${store("new")}, ${body("new")}); END`,
];

export const commerceMigration0006SearchByStore: Migration = {
  version: 6,
  name: "search_by_store",
  sqlite,
  postgres: [],
};
