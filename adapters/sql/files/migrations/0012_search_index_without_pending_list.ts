/**
 * File storage migration 12 (Postgres only): the GIN index of the drive search
 * (fs_search_documents) keeps no pending list (`fastupdate = off`), and the list it has is merged
 * now. With the default, every indexed row went first to an unsorted list that each search then
 * read whole until a VACUUM merged it: with the bench's 100,000 file names just indexed, a search
 * for a word of 100 of them read a list of 491 pages, ~9 of its 10 ms (0.8 ms merged). A row's
 * entries now go into the index as it is written: a little more work per write, none left to every
 * search (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";

/** Migration 12 of the file storage module. */
export const filesMigration0012: Migration = {
  version: 12,
  name: "search_index_without_pending_list",
  sqlite: [],
  postgres: [`ALTER INDEX fs_search_documents_tsv SET (fastupdate = off)`, `SELECT gin_clean_pending_list('fs_search_documents_tsv'::regclass)`],
};
