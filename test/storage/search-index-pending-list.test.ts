/**
 * The GIN indexes of the three searches on Postgres (projects pm_search_docs, files
 * fs_search_documents, commerce shop_products) keep no pending list: a written row's entries go
 * into the index at once, so no search reads an unmerged list first (files migration 12, projects
 * migration 10, commerce migration 11). With the default (`fastupdate = on`), 100,000 file names
 * just indexed left a list of 491 pages that a search for a word of 100 names read whole: ~9 of
 * its 10 ms. `gin_clean_pending_list` answers how many pages of a list it merged: none now.
 */
import t from "tap";
import { sql } from "kysely";
import { openTestDatabase } from "../support/databases.js";
import { filesRuntime, filesTestModules, workspaceWithDrive } from "../files/support.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";

const searchIndexes = ["pm_search_docs_tsv", "fs_search_documents_tsv", "shop_products_search"];

t.test("the search indexes keep no pending list: documents written are in the index itself, none left for a search to read first [postgres]", async (t) => {
  const db = await openTestDatabase("postgres", t, [...filesTestModules, makeCommerceModule()]);

  const options = await sql<{ relname: string; reloptions: string[] | null }>`
    SELECT relname, reloptions FROM pg_class WHERE relname IN (${sql.join(searchIndexes)}) ORDER BY relname`.execute(db.db);
  t.same(
    options.rows.map((row) => [row.relname, row.reloptions]),
    [...searchIndexes].sort().map((name) => [name, ["fastupdate=off"]]),
    "each of the three GIN indexes is built without a pending list",
  );

  const env = filesRuntime(t, db);
  const root = await workspaceWithDrive(env, "ws1", "adm");
  const at = new Date();
  const indexNames = async (from: number, to: number) => {
    await sql`INSERT INTO fs_nodes (id, workspace_id, parent_id, name, kind, version, legal_hold, created_by, created_at, updated_at)
      SELECT 'n-' || i, 'ws1', ${root}, 'item ' || i, 'folder', 1, false, 'adm', ${at}, ${at} FROM generate_series(${from}::int, ${to}::int) AS i`.execute(db.db);
    await sql`INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
      SELECT 'ws1', 'n-' || i, 'item ' || i, NULL, NULL, '', 1 FROM generate_series(${from}::int, ${to}::int) AS i`.execute(db.db);
  };
  const merged = async () =>
    Number((await sql<{ pages: unknown }>`SELECT gin_clean_pending_list('fs_search_documents_tsv'::regclass) AS pages`.execute(db.db)).rows[0]?.pages);

  await indexNames(1, 2_000);
  t.equal(await merged(), 0, "2,000 documents indexed left no pending page to merge");

  // The same writes with the default: the measure sees a pending list when there is one.
  await sql`ALTER INDEX fs_search_documents_tsv SET (fastupdate = on)`.execute(db.db);
  await indexNames(2_001, 4_000);
  t.ok((await merged()) > 0, "with fastupdate on, the same writes leave pages that every search would read until merged");
});
