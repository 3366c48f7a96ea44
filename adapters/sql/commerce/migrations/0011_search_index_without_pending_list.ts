/**
 * Commerce migration 11 (Postgres only): the GIN index of the catalog search (shop_products) keeps
 * no pending list (`fastupdate = off`), and the list it has is merged now. With the default, every
 * indexed row went first to an unsorted list that each search then read whole until a VACUUM
 * merged it: with the bench's 100,000 file names just indexed, a search for a word of 100 of them
 * read a list of 491 pages, ~9 of its 10 ms (0.8 ms merged). A row's entries now go into the index
 * as it is written: a little more work per write, none left to every search (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";

/** Migration 11 of the commerce module. */
export const commerceMigration0011SearchIndexWithoutPendingList: Migration = {
  version: 11,
  name: "search_index_without_pending_list",
  sqlite: [],
  postgres: [`ALTER INDEX shop_products_search SET (fastupdate = off)`, `SELECT gin_clean_pending_list('shop_products_search'::regclass)`],
};
