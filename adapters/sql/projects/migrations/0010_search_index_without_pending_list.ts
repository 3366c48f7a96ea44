/**
 * Projects migration 10 (Postgres only): the GIN index of the task and comment search
 * (pm_search_docs) keeps no pending list (`fastupdate = off`), and the list it has is merged now.
 * With the default, every indexed row went first to an unsorted list that each search then read
 * whole until a VACUUM merged it: with the bench's 100,000 file names just indexed, a search for a
 * word of 100 of them read a list of 491 pages, ~9 of its 10 ms (0.8 ms merged). A row's entries
 * now go into the index as it is written: a little more work per write, none left to every search
 * (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";

/** Migration 10 of the projects module. */
export const projectsMigration0010SearchIndexWithoutPendingList: Migration = {
  version: 10,
  name: "search_index_without_pending_list",
  sqlite: [],
  postgres: [`ALTER INDEX pm_search_docs_tsv SET (fastupdate = off)`, `SELECT gin_clean_pending_list('pm_search_docs_tsv'::regclass)`],
};
