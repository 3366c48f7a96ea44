/**
 * The walk of the nodes a reader sees (the subtrees of their grants) on Postgres: files migration
 * 11's `fs_visible_nodes`, which the scoped search and the trash listing use. On a drive of a few
 * large folders, analyzed, the same walk written inline hashes the drive's nodes at each level (a
 * sequential scan per level, whatever the reader sees: docs/known-gaps.md had it); the function
 * looks each level up by the parent index. Counted by Postgres itself in the transaction's own
 * statistics (pg_stat_xact_user_tables), not timed. It answers what the inline walk answers. And
 * the search of the owner of a large folder reads about the first walk's nodes, not the folder
 * (the node rows it fetched, counted the same way).
 */
import t from "tap";
import { Effect } from "effect";
import { sql, type Kysely } from "kysely";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { currentExecutor } from "../../adapters/sql/Transactions.js";
import { searchNodes } from "../../core/files/SearchNodes.js";
import { Transactions } from "../../ports/Transactions.js";
import { openTestDatabase, type TapTest } from "../support/databases.js";
import { filesRuntime, filesTestModules, workspaceWithDrive } from "./support.js";

/** Large folders of the drive, and the nodes in each: the shape that leads the planner to hash. */
const bigFolders = 2;
const perBigFolder = 10_000;

/** The reader's folder: `small`, its 20 children, and a trashed child folder with 5 children of its own. */
const smallChildren = 20;

/**
 * A drive with `bigFolders` folders of `perBigFolder` nodes, and `small` (granted to ann) with
 * its children and a trashed folder; analyzed, as autovacuum would leave it.
 */
const seededDrive = async (t: TapTest, db: SqlDatabase) => {
  const env = filesRuntime(t, db);
  const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
  const at = new Date();
  const insert = (id: string, parent: string, name: string, trashed: boolean) =>
    sql`INSERT INTO fs_nodes (id, workspace_id, parent_id, name, kind, version, legal_hold, created_by, created_at, updated_at, trashed_at, trash_root_id)
        VALUES (${id}, 'ws1', ${parent}, ${name}, 'folder', 1, false, 'adm', ${at}, ${at}, ${trashed ? at : null}, ${trashed ? "small-trashed" : null})`.execute(db.db);
  for (let f = 0; f < bigFolders; f++) {
    await insert(`big-${f}`, root, `big ${f}`, false);
    await sql`INSERT INTO fs_nodes (id, workspace_id, parent_id, name, kind, version, legal_hold, created_by, created_at, updated_at)
        SELECT ${`big-${f}-`} || i, 'ws1', ${`big-${f}`}, 'item ' || i, 'folder', 1, false, 'adm', ${at}, ${at}
        FROM generate_series(1, ${perBigFolder}::int) AS i`.execute(db.db);
  }
  await insert("small", root, "small", false);
  for (let i = 0; i < smallChildren; i++) await insert(`small-${i}`, "small", `child ${i}`, false);
  await insert("small-trashed", "small", "trashed", true);
  for (let i = 0; i < 5; i++) await insert(`small-trashed-${i}`, "small-trashed", `gone ${i}`, true);
  await sql`INSERT INTO fs_acl_entries (workspace_id, node_id, user_id, role, granted_by, created_at) VALUES ('ws1', 'small', 'ann', 'viewer', 'adm', ${at})`.execute(db.db);
  // bob owns the first large folder, whose names are indexed.
  await sql`INSERT INTO fs_acl_entries (workspace_id, node_id, user_id, role, granted_by, created_at) VALUES ('ws1', 'big-0', 'bob', 'owner', 'adm', ${at})`.execute(db.db);
  await sql`INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
    SELECT 'ws1', id, name, NULL, NULL, '', 1 FROM fs_nodes WHERE workspace_id = 'ws1' AND parent_id = 'big-0'`.execute(db.db);
  await sql`ANALYZE fs_nodes`.execute(db.db);
  await sql`ANALYZE fs_acl_entries`.execute(db.db);
  await sql`ANALYZE fs_search_documents`.execute(db.db);
  return env;
};

/** The walk as the search wrote it inline before migration 11 (active nodes only). */
const inlineWalk = sql`WITH RECURSIVE seen (id) AS (
    SELECT a.node_id FROM fs_acl_entries a WHERE a.workspace_id = 'ws1' AND a.user_id = 'ann'
    UNION
    SELECT n.id FROM seen s CROSS JOIN fs_nodes n WHERE n.parent_id = s.id AND n.workspace_id = 'ws1' AND n.trashed_at IS NULL
  ) SELECT id FROM seen`;

/** The sequential scans of fs_nodes this connection made that are not yet in pg_stat_user_tables. */
const pendingSeqScans = async (ex: Kysely<any>): Promise<number> =>
  Number((await sql<{ seq_scan: unknown }>`SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'fs_nodes'`.execute(ex)).rows[0]?.seq_scan ?? 0);

/**
 * Runs `query` in a transaction on one connection and answers its ids and the sequential scans
 * of fs_nodes it made: the connection's own statistics before and after it (Postgres 15 and later
 * count there what earlier transactions of the connection did until they are flushed).
 */
const walked = (db: SqlDatabase, query: (ex: Kysely<any>) => Promise<ReadonlyArray<{ id: string }>>) =>
  db.db.transaction().execute(async (tx) => {
    const before = await pendingSeqScans(tx);
    const ids = (await query(tx)).map((row) => String(row.id)).sort();
    return { ids, seqScans: (await pendingSeqScans(tx)) - before };
  });

const function_ = (activeOnly: boolean, cap: number | null) => (ex: Kysely<any>) =>
  sql<{ id: string }>`SELECT id FROM fs_visible_nodes('ws1', 'ann', ${activeOnly}, ${cap})`.execute(ex).then((r) => r.rows);

t.test("the walk of a reader's visible nodes looks each level up by the parent index: no sequential scan of a drive of a few large folders [postgres]", async (t) => {
  const db = await openTestDatabase("postgres", t, filesTestModules);
  await seededDrive(t, db);

  const inline = await walked(db, (ex) => inlineWalk.execute(ex).then((r) => r.rows as Array<{ id: string }>));
  t.ok(inline.seqScans > 0, `the same walk written inline scans the drive (${inline.seqScans} sequential scans): the shape this guards against`);

  const walk = await walked(db, function_(true, null));
  t.equal(walk.seqScans, 0, "fs_visible_nodes reads no node by a sequential scan");
  t.same(walk.ids, inline.ids, "and answers the nodes the inline walk answers");
  t.equal(walk.ids.length, 1 + smallChildren, "the granted folder and its active children, not the trashed folder's subtree");

  // Planned for any parameters (a SQL function's statement is), hash and merge joins off alone
  // left a loop over the drive's nodes probing the working table (0.4–0.8 s on the bench's drive).
  const settings = await sql<{ proconfig: string[] }>`SELECT proconfig FROM pg_proc WHERE proname = 'fs_visible_nodes'`.execute(db.db);
  t.same(
    [...(settings.rows[0]?.proconfig ?? [])].sort(),
    ["enable_bitmapscan=off", "enable_hashjoin=off", "enable_material=off", "enable_mergejoin=off", "enable_seqscan=off", "enable_sort=off"],
    "and it leaves the planner no other way to read the nodes than index scans by parent, whatever the parameters",
  );
});

t.test("fs_visible_nodes answers trashed nodes too when asked, and stops at its cap [postgres]", async (t) => {
  const db = await openTestDatabase("postgres", t, filesTestModules);
  await seededDrive(t, db);

  const all = await walked(db, function_(false, null));
  t.equal(all.ids.length, 1 + smallChildren + 1 + 5, "with trashed nodes: the trashed folder and its children as well (the trash listing's walk)");
  t.ok(all.ids.includes("small-trashed-4"), "a trashed folder's children are walked");
  t.equal(all.seqScans, 0, "without a sequential scan either");

  const capped = await walked(db, function_(true, 7));
  t.equal(capped.ids.length, 7, "at most `cap` nodes");
  t.ok(capped.ids.every((id) => id === "small" || id.startsWith("small-")), "all of them the reader's");
});

t.test("a search by the owner of a large folder reads about the first walk's nodes and the scan's batch, not the folder (the scoped search walked 20,001 nodes on every such search) [postgres]", async (t) => {
  const db = await openTestDatabase("postgres", t, filesTestModules);
  const env = await seededDrive(t, db);
  const rowsRead = sql<{ rows: unknown }>`SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) AS rows FROM pg_stat_xact_user_tables WHERE relname = 'fs_nodes'`;
  // The search and the statistics on one connection, in one transaction (the counts are the connection's).
  const { page, read } = await env.run(
    Effect.flatMap(Transactions, (tx) =>
      tx.run(
        Effect.gen(function* () {
          const ex = yield* currentExecutor(db);
          const before = Number((yield* Effect.promise(() => rowsRead.execute(ex))).rows[0]?.rows ?? 0);
          const page = yield* searchNodes({ userId: "bob", workspaceId: "ws1", q: "item", cursor: null, limit: 50 });
          const after = Number((yield* Effect.promise(() => rowsRead.execute(ex))).rows[0]?.rows ?? 0);
          return { page, read: after - before };
        }),
      ),
    ),
  );
  t.equal(page.data.length, 50, "a full page of bob's matches");
  t.ok(read < 2 * 1_000 + 500, `the search read ${read} node rows: the first walk's 1,001 and the page's, not the ${perBigFolder.toLocaleString("en-US")} of the folder`);
});
