/**
 * NodeSearchIndex over Kysely: `fs_search_documents` plus SQLite FTS5 (`fs_search_fts`, rowid =
 * the document's `rid`, kept in step by triggers) or a generated Postgres tsvector with a GIN index
 * ('simple' on both sides: no stemming); files migration 9. The dialect switch stays in this file.
 * A search finds the matching documents of the workspace (on SQLite the full-text row carries the
 * workspace as a token, so the match is the workspace's only), keeps active nodes whose text
 * counts only while it is of the node's current version (else only the name must match), and
 * keeps the hits the reader can see. Two ways, chosen per search:
 * - a reader without a grant on the drive's root (who may not see every node) searches among the
 *   nodes they see — the subtrees of their grants, walked down — exactly: never a short page
 *   because hidden matches were counted (conventions.md, Lists). SQLite walks FTS5's matches
 *   newest first probing that set, Postgres looks each visible node's document up (10,000 visible
 *   of 100,000 matches, the reader's the oldest: 33 ms on SQLite, 90 ms on Postgres). The walk
 *   costs what it walks (20,000 nodes: ~28 ms on SQLite), so it first looks at `firstScopedNodes`;
 *   a reader who sees more gets the bounded scan, and the walk of up to `maxScopedNodes` only when
 *   the scan's page comes out short;
 * - a reader with a grant on the root gets the bounded scan below, whose short pages say only that
 *   matches were examined (they see every active node: none is hidden from them); one who sees
 *   more nodes than `maxScopedNodes` gets it too, but their scan goes on past the bound until the
 *   page is full or the matches end, so no short page tells them hidden matches exist.
 * The bounded scan keeps the hits the reader can see — a grant on the hit itself, or on its parent
 * or one of the parent's ancestors: the walk (a recursive CTE, `up CROSS JOIN fs_nodes`, as the
 * change feed does) starts from the hits' distinct parents, not from every hit (20,000 matches in
 * 100 folders: 75 → 27 ms on SQLite). The matches are examined newest first in the index's order
 * — on SQLite the FTS5 rowid (the document's rid, the order documents were first indexed in), on
 * Postgres the node's id along the primary key — in batches, at most `maxExaminedMatches` per
 * search; a search stops once it has `limit` visible hits, or answers those found so far with the
 * position of the last match examined when the bound comes first (100,000 matches: 150 ms → 3 ms
 * on SQLite, 0.5–0.8 s → 2 ms on Postgres, bench/README.md "eleventh session").
 */
import { Effect } from "effect";
import { sql, type Kysely } from "kysely";
import { Node } from "../../../core/files/model/Node.js";
import type { NodeSearchDocument, NodeSearchHit, NodeSearchIndex, NodeSearchPage, NodeSearchWrite } from "../../../ports/files/NodeSearchIndex.js";
import { featuresFor } from "../featuresFor.js";
import { fts5PrefixQuery, tsqueryPrefix } from "../FullTextQuery.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** The deepest ancestor walk of a hit (a deeper tree is refused by moves long before). */
const maxAncestorDepth = 256;

/** The token of a workspace in the SQLite full-text row (`'w' || lower(hex(workspace_id))` in migration 9's triggers). */
const workspaceToken = (workspaceId: string): string => `w${Buffer.from(workspaceId, "utf8").toString("hex")}`;

/** What a search asks (the port's request). */
type SearchRequest = Parameters<NodeSearchIndex["search"]>[0];

/** The smallest batch of matches a search reads at once. */
const minBatch = 64;

/**
 * The largest batch of matches a search reads at once on Postgres: the planner walks the primary
 * key backwards for a LIMIT up to about this (it guesses 2% of the documents match a prefix), but
 * for 1,000 it sorted a sequential scan of the whole table (100,000 documents: 66 ms). SQLite has
 * no such switch, and each batch pays the FTS5 prefix query's setup again: the rest in one batch.
 */
const maxPostgresBatch = 500;

/** What the SQL node search index can be built with. */
export interface SqlNodeSearchIndexOptions {
  /** The most matches one search examines (default {@link defaultMaxExaminedMatches}); tests set a few. */
  readonly maxExaminedMatches?: number;
  /** The most nodes a reader without a grant on the root may see for their search to look among them only (default {@link defaultMaxScopedNodes}); tests set a few. */
  readonly maxScopedNodes?: number;
  /**
   * The most nodes the first walk of such a reader's visible nodes looks at, before any scan
   * (default {@link defaultFirstScopedNodes}, at most `maxScopedNodes`); tests set a few.
   */
  readonly firstScopedNodes?: number;
}

/** The matches one search examines at most, by default: a page of visible hits is usually found long before. */
export const defaultMaxExaminedMatches = 2_000;

/** The nodes a reader may see, by default, for their search to look among them only (else the bounded scan). */
export const defaultMaxScopedNodes = 20_000;

/**
 * The nodes the first, cheap walk looks at, by default: a reader who sees no more gets the exact
 * search at once; one who sees more gets the bounded scan first, and the full walk (up to
 * `maxScopedNodes`) only when that scan's page comes out short. Walking 20,000 nodes costs ~28 ms
 * on SQLite (1,000: ~1 ms), and the owner of one large folder paid it on every search (bench
 * files-search-100k-broad: 270 -> 14 req/s) though the scan fills their page from the first batch.
 */
export const defaultFirstScopedNodes = 1_000;

/** Builds the node search index over `db`. */
export const makeSqlNodeSearchIndex = (db: SqlDatabase, options: SqlNodeSearchIndexOptions = {}): NodeSearchIndex => {
  const nodes = rowCodec(Node, featuresFor(db));
  const sqlite = db.dialect === "sqlite";
  const documentOf = (row: Record<string, unknown>): NodeSearchDocument => ({
    workspaceId: String(row.workspace_id),
    nodeId: String(row.node_id),
    name: String(row.name),
    contentType: row.content_type === null ? null : String(row.content_type),
    versionId: row.version_id === null ? null : String(row.version_id),
    seq: toNumber(row.seq),
    text: String(row.body),
  });
  const maxExamined = Math.max(1, options.maxExaminedMatches ?? defaultMaxExaminedMatches);
  /**
   * One batch of the search: of the next `size` matching documents of the workspace strictly after
   * `after` in the index's order, the first `limit` whose node is active, whose text counts (or
   * whose name alone matches) and which the reader sees — each row a node with its position — and
   * on every row how many documents were examined and the position of the last (one row of nulls
   * but those when none is visible).
   */
  const searchBatch = (req: SearchRequest, after: string | undefined, size: number, limit: number) => {
    // Terms are letters and digits only (core/kernel/SearchTerms.ts), and bound as parameters.
    const terms = fts5PrefixQuery(req.terms);
    const scope = `workspace : "${workspaceToken(req.workspaceId)}"`;
    // SQLite: FTS5 walks its matches by rowid (the document's rid), newest first, and stops after
    // `size`; each document by its rid and its node by key. A position that is not a rid (a
    // cursor of another list) is before every document: an empty page.
    const afterRid = after === undefined ? null : /^[0-9]{1,15}$/.test(after) ? Number(after) : 0;
    const batch = sqlite
      ? sql`SELECT f.rid AS position, d.node_id, d.version_id FROM (
            SELECT rowid AS rid FROM fs_search_fts WHERE fs_search_fts MATCH ${`${scope} AND {name body} : (${terms})`}${afterRid === null ? sql`` : sql` AND rowid < ${afterRid}`}
            ORDER BY rowid DESC LIMIT ${size}
          ) f CROSS JOIN fs_search_documents d ON d.rid = f.rid
          WHERE d.workspace_id = ${req.workspaceId}`
      : // Postgres: by the node's id on the primary key (workspace_id, node_id), the tsquery checked
        // on each document (the planner walks the key backwards for a broad query, stopping after
        // `size`; a narrow one it finds by the GIN index).
        sql`SELECT d.node_id AS position, d.node_id, d.version_id FROM fs_search_documents d
          WHERE d.workspace_id = ${req.workspaceId} AND d.tsv @@ to_tsquery('simple', ${tsqueryPrefix(req.terms)})${after === undefined ? sql`` : sql` AND d.node_id < ${after}`}
          ORDER BY d.node_id DESC LIMIT ${size}`;
    // Text of another version than the node's current one does not count: then the name alone must match.
    const nameMatches = sqlite
      ? sql`EXISTS (SELECT 1 FROM fs_search_fts WHERE fs_search_fts MATCH ${`${scope} AND {name} : (${terms})`} AND rowid = b.position)`
      : sql`to_tsvector('simple', d.name) @@ to_tsquery('simple', ${tsqueryPrefix(req.terms)})`;
    return sql<Record<string, unknown>>`
      WITH RECURSIVE batch (position, node_id, version_id) AS MATERIALIZED (${batch}),
      hits (id, parent_id) AS MATERIALIZED (
        SELECT n.id, n.parent_id FROM batch b CROSS JOIN fs_nodes n${sqlite ? sql`` : sql` JOIN fs_search_documents d ON d.workspace_id = n.workspace_id AND d.node_id = n.id`}
        WHERE n.workspace_id = ${req.workspaceId} AND n.id = b.node_id AND n.trashed_at IS NULL
          AND (${sqlite ? sql`b.version_id IS n.current_version_id` : sql`b.version_id IS NOT DISTINCT FROM n.current_version_id`} OR ${nameMatches})
      ),
      up (start, id, parent_id, depth) AS (
        SELECT p.id, p.id, p.parent_id, 0 FROM fs_nodes p WHERE p.workspace_id = ${req.workspaceId} AND p.id IN (SELECT parent_id FROM hits)
        UNION ALL
        SELECT u.start, p.id, p.parent_id, u.depth + 1 FROM up u CROSS JOIN fs_nodes p
        WHERE p.id = u.parent_id AND p.workspace_id = ${req.workspaceId} AND u.depth < ${maxAncestorDepth}
      ),
      seen_parents (id) AS (
        SELECT u.start FROM up u
        WHERE EXISTS (SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = ${req.workspaceId} AND a.node_id = u.id AND a.user_id = ${req.userId})
      ),
      visible (id) AS (
        SELECT h.id FROM hits h
        WHERE h.parent_id IN (SELECT id FROM seen_parents)
          OR EXISTS (SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = ${req.workspaceId} AND a.node_id = h.id AND a.user_id = ${req.userId})
      ),
      page (position, id) AS (
        SELECT b.position, v.id FROM batch b JOIN visible v ON v.id = b.node_id ORDER BY b.position DESC LIMIT ${limit}
      )
      SELECT s.examined, s.last_position, p.position AS search_position, n.*
      FROM (SELECT count(*) AS examined, min(position) AS last_position FROM batch) s
      LEFT JOIN page p ON 1 = 1
      LEFT JOIN fs_nodes n ON n.workspace_id = ${req.workspaceId} AND n.id = p.id
      ORDER BY p.position DESC`;
  };
  const maxScoped = Math.max(0, options.maxScopedNodes ?? defaultMaxScopedNodes);
  const firstScoped = Math.min(maxScoped, Math.max(0, options.firstScopedNodes ?? defaultFirstScopedNodes));
  /** How many grants the reader holds in the workspace (`grants`), and whether one is on the drive's root (`on_root`: then they see every active node). */
  const readerGrants = (req: SearchRequest) =>
    sql<{ grants: unknown; on_root: unknown }>`SELECT count(*) AS grants, count(CASE WHEN r.parent_id IS NULL THEN 1 END) AS on_root
      FROM fs_acl_entries a CROSS JOIN fs_nodes r
      WHERE a.workspace_id = ${req.workspaceId} AND a.user_id = ${req.userId} AND r.id = a.node_id AND r.workspace_id = ${req.workspaceId}`;
  /**
   * The nodes the reader sees, as the CTE `visible`: the subtrees of the nodes they hold grants
   * on, walked down by parent (the indexes on (workspace_id, parent_id) and (parent_id, name, id);
   * active nodes only — a trashed folder's subtree is trashed with it), at most `bound` + 1 of
   * them, materialized once.
   */
  const visibleNodes = (req: SearchRequest, bound: number) => {
    const cap = bound + 1;
    // Postgres: the walk as files migration 11's function, which looks each level up by the parent
    // index (inline, the planner hashed the drive's nodes per level: docs/decisions.md).
    if (!sqlite) return sql`visible (id) AS MATERIALIZED (SELECT id FROM fs_visible_nodes(${req.workspaceId}, ${req.userId}, true, ${cap}))`;
    // UNION, not UNION ALL: nested grants walk a subtree once, and the walk ends (a tree has no cycle).
    // Each parent's children are read up to the cap by a subquery: the LIMIT of the recursive step
    // bounds the rows kept, not those read, so a folder of 100,000 was read whole (~38 ms) to keep 1,001.
    return sql`seen (id) AS (
        SELECT a.node_id FROM fs_acl_entries a WHERE a.workspace_id = ${req.workspaceId} AND a.user_id = ${req.userId}
        UNION
        SELECT n.id FROM seen s CROSS JOIN fs_nodes n
        WHERE n.workspace_id = ${req.workspaceId} AND n.id IN (
          SELECT c.id FROM fs_nodes c WHERE c.workspace_id = ${req.workspaceId} AND c.parent_id = s.id AND c.trashed_at IS NULL LIMIT ${cap}
        )
        LIMIT ${cap}
      ),
      visible (id) AS MATERIALIZED (SELECT id FROM seen)`;
  };
  /**
   * Of the matching documents of the nodes in `visible`, strictly after `after`, the first `limit`
   * newest first whose node is active and whose text counts (or whose name alone matches): each a
   * position (the bounded scan's, so a cursor of either goes on in the other) and a node id. None
   * when `visible` is empty or holds more than `bound`, and then no match is read: SQLite gets
   * LIMIT 0, which ends the statement before its first row (as a condition in WHERE, it walked
   * every match for nothing: 100,000 in ~8 ms).
   */
  const visibleMatches = (req: SearchRequest, bound: number) => {
    const terms = fts5PrefixQuery(req.terms);
    const scope = `workspace : "${workspaceToken(req.workspaceId)}"`;
    const afterRid = req.after === undefined ? null : /^[0-9]{1,15}$/.test(req.after) ? Number(req.after) : 0;
    return sqlite
      ? // SQLite: FTS5's matches newest first (by rowid, the document's rid), each kept when its node
        // is visible (`+` keeps the planner from looking every match up per visible node: 33 s for
        // 10,000), until `limit`; a per-node FTS5 check would pay the prefix query's setup per node
        // (~3 ms for `item*`). The cost is the matches walked until `limit` visible ones.
        sql`SELECT f.rid, n.id FROM (
            SELECT rowid AS rid FROM fs_search_fts WHERE fs_search_fts MATCH ${`${scope} AND {name body} : (${terms})`}${afterRid === null ? sql`` : sql` AND rowid < ${afterRid}`}
          ) f CROSS JOIN fs_search_documents d CROSS JOIN fs_nodes n
          WHERE d.rid = f.rid AND d.workspace_id = ${req.workspaceId} AND +d.node_id IN (SELECT id FROM visible)
            AND n.workspace_id = ${req.workspaceId} AND n.id = d.node_id AND n.trashed_at IS NULL
            AND (d.version_id IS n.current_version_id
              OR EXISTS (SELECT 1 FROM fs_search_fts WHERE fs_search_fts MATCH ${`${scope} AND {name} : (${terms})`} AND rowid = f.rid))
          ORDER BY f.rid DESC LIMIT (CASE WHEN (SELECT count(*) FROM visible) BETWEEN 1 AND ${bound} THEN ${req.limit} ELSE 0 END)`
      : // Postgres: each visible node's document by the primary key, the tsquery checked on it (a
        // LATERAL with a LIMIT: else the planner hashed every matching document, 100,000 for `item`).
        // The cost is the visible nodes.
        sql`SELECT d.node_id, d.node_id FROM visible v CROSS JOIN LATERAL (
            SELECT d.node_id FROM fs_search_documents d CROSS JOIN fs_nodes n
            WHERE d.workspace_id = ${req.workspaceId} AND d.node_id = v.id${req.after === undefined ? sql`` : sql` AND d.node_id < ${req.after}`}
              AND d.tsv @@ to_tsquery('simple', ${tsqueryPrefix(req.terms)})
              AND n.workspace_id = ${req.workspaceId} AND n.id = v.id AND n.trashed_at IS NULL
              AND (d.version_id IS NOT DISTINCT FROM n.current_version_id OR to_tsvector('simple', d.name) @@ to_tsquery('simple', ${tsqueryPrefix(req.terms)}))
            LIMIT 1
          ) d
          WHERE (SELECT count(*) FROM visible) BETWEEN 1 AND ${bound}
          ORDER BY d.node_id DESC LIMIT ${req.limit}`;
  };
  /**
   * The search among the nodes the reader sees: exact, every match looked at is visible, so never
   * a short page because hidden matches were counted. Every row carries `seen`, how many nodes the
   * walk found (at most `bound` + 1); past the bound no hit is looked for (one row of nulls but
   * that), and the caller goes on with the bounded scan.
   */
  const scopedSearch = (req: SearchRequest, bound: number) =>
    sql<Record<string, unknown>>`
      WITH RECURSIVE ${visibleNodes(req, bound)},
      page (position, id) AS (${visibleMatches(req, bound)})
      SELECT s.seen, p.position AS search_position, n.*
      FROM (SELECT count(*) AS seen FROM visible) s
      LEFT JOIN page p ON 1 = 1
      LEFT JOIN fs_nodes n ON n.workspace_id = ${req.workspaceId} AND n.id = p.id
      ORDER BY p.position DESC`;
  /** The rows' hits: each row with a search position is a visible node at that position. */
  const hitsOf = (rows: ReadonlyArray<Record<string, unknown>>): NodeSearchHit[] =>
    rows.filter((row) => row.search_position !== null).map((row) => ({ node: nodes.fromRow(row), position: String(row.search_position) }));
  /** The exact page among the nodes the reader sees, or null when they see more than `bound`. */
  const scopedPage = async (ex: Kysely<any>, req: SearchRequest, bound: number): Promise<NodeSearchPage | null> => {
    const rows = (await scopedSearch(req, bound).execute(ex)).rows;
    return toNumber(rows[0]?.seen ?? 0) <= bound ? { hits: hitsOf(rows), scannedTo: null } : null;
  };
  /**
   * The bounded scan: the workspace's matches in the index's order, in batches, until `limit`
   * visible hits or `bound` examined (then `scannedTo`, the last one's position).
   */
  const boundedSearch = async (ex: Kysely<any>, req: SearchRequest, bound: number): Promise<NodeSearchPage> => {
    const hits: NodeSearchHit[] = [];
    let after = req.after;
    let examined = 0;
    // Twice the page first (a broad query whose first matches are visible reads no more),
    // then the rest of the bound (on Postgres, at most maxPostgresBatch at a time).
    let batch = Math.max(2 * req.limit, minBatch);
    for (;;) {
      const size = Math.min(batch, bound - examined);
      const rows = (await searchBatch(req, after, size, req.limit - hits.length).execute(ex)).rows;
      const examinedNow = toNumber(rows[0]?.examined ?? 0);
      if (examinedNow === 0) return { hits, scannedTo: null };
      hits.push(...hitsOf(rows));
      examined += examinedNow;
      after = String(rows[0]!.last_position);
      if (hits.length >= req.limit || examinedNow < size) return { hits, scannedTo: null };
      if (examined >= bound) return { hits, scannedTo: after };
      batch = sqlite ? maxExamined : maxPostgresBatch;
    }
  };
  return {
    upsert: (entry) =>
      runQuery(db, async (ex): Promise<NodeSearchWrite> => {
        const where = sql`workspace_id = ${entry.workspaceId} AND node_id = ${entry.nodeId}`;
        // Twice at most: a first document inserted by a concurrent writer is then updated (or refused).
        for (let attempt = 0; attempt < 2; attempt++) {
          const existing = await sql<{ seq: unknown; version_id: string | null }>`
            SELECT seq, version_id FROM fs_search_documents WHERE ${where}${sqlite ? sql`` : sql` FOR UPDATE`}`.execute(ex);
          const stored = existing.rows[0];
          if (stored === undefined) {
            // Only for a node that exists (a purged one's document is gone with it).
            const inserted = await sql`
              INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
              SELECT ${entry.workspaceId}, ${entry.nodeId}, ${entry.name}, ${entry.contentType}, ${entry.versionId}, '', ${entry.seq}
              WHERE EXISTS (SELECT 1 FROM fs_nodes WHERE workspace_id = ${entry.workspaceId} AND id = ${entry.nodeId} AND purged_at IS NULL)
              ON CONFLICT (workspace_id, node_id) DO NOTHING
              RETURNING node_id`.execute(ex);
            if (inserted.rows.length === 1) return entry.versionId === null ? "text_kept" : "text_cleared";
            const node = await sql`SELECT 1 AS found FROM fs_nodes WHERE workspace_id = ${entry.workspaceId} AND id = ${entry.nodeId} AND purged_at IS NULL`.execute(ex);
            if (node.rows.length === 0) return "stale";
            continue;
          }
          if (toNumber(stored.seq) >= entry.seq) return "stale";
          const sameVersion = stored.version_id === entry.versionId;
          const updated = await sql`
            UPDATE fs_search_documents SET name = ${entry.name}, content_type = ${entry.contentType}, version_id = ${entry.versionId}, seq = ${entry.seq}${sameVersion ? sql`` : sql`, body = ''`}
            WHERE ${where} AND seq < ${entry.seq}
            RETURNING node_id`.execute(ex);
          if (updated.rows.length === 0) return "stale";
          return sameVersion ? "text_kept" : "text_cleared";
        }
        return "stale";
      }),
    setText: (workspaceId, nodeId, versionId, text) =>
      runQuery(db, (ex) =>
        sql`UPDATE fs_search_documents SET body = ${text} WHERE workspace_id = ${workspaceId} AND node_id = ${nodeId} AND version_id = ${versionId} RETURNING node_id`.execute(ex),
      ).pipe(Effect.map((result) => result.rows.length === 1)),
    adoptCurrentVersions: (limit) =>
      runQuery(db, (ex) => {
        const current = sql`(SELECT n.current_version_id FROM fs_nodes n WHERE n.workspace_id = fs_search_documents.workspace_id AND n.id = fs_search_documents.node_id)`;
        // The candidates come from the partial index fs_search_documents_awaiting_version (migration 9).
        return sql<{ workspace_id: string; node_id: string; version_id: string | null }>`
          UPDATE fs_search_documents SET version_id = ${current}, content_type = CASE WHEN ${current} IS NULL THEN NULL ELSE content_type END
          WHERE (workspace_id, node_id) IN (
            SELECT workspace_id, node_id FROM fs_search_documents WHERE version_id IS NULL AND content_type IS NOT NULL LIMIT ${limit}
          )
          RETURNING workspace_id, node_id, version_id`.execute(ex);
      }).pipe(
        Effect.map((result) =>
          result.rows.map((r) => ({ workspaceId: String(r.workspace_id), nodeId: String(r.node_id), versionId: r.version_id === null ? null : String(r.version_id) })),
        ),
      ),
    find: (workspaceId, nodeId) =>
      runQuery(db, (ex) =>
        sql<Record<string, unknown>>`
          SELECT workspace_id, node_id, name, content_type, version_id, seq, body FROM fs_search_documents
          WHERE workspace_id = ${workspaceId} AND node_id = ${nodeId}`.execute(ex),
      ).pipe(Effect.map((result) => (result.rows[0] === undefined ? null : documentOf(result.rows[0])))),
    search: (req) =>
      req.terms.length === 0
        ? Effect.succeed({ hits: [], scannedTo: null })
        : runQuery(db, async (ex): Promise<NodeSearchPage> => {
            const grants = (await readerGrants(req).execute(ex)).rows[0];
            // A reader without a grant sees no node: nothing to look for, and the list ends.
            if (toNumber(grants?.grants ?? 0) === 0) return { hits: [], scannedTo: null };
            // A reader with a grant on the root sees every active node: no hidden match to count.
            const partial = toNumber(grants?.on_root ?? 0) === 0;
            // Who sees few nodes: the exact search among them at once.
            const first = partial ? await scopedPage(ex, req, firstScoped) : null;
            if (first !== null) return first;
            // Else the bounded scan, whose page is exact when full or the last (the owner of a large
            // folder: the first batch); a short page that goes on may be short for hidden matches:
            // then the exact search among up to maxScopedNodes seen nodes.
            const scanned = await boundedSearch(ex, req, maxExamined);
            if (!partial || scanned.scannedTo === null) return scanned;
            const scoped = maxScoped > firstScoped ? await scopedPage(ex, req, maxScoped) : null;
            if (scoped !== null) return scoped;
            // Past those, the scan goes on without a bound until the page is full or the matches
            // end: a short page with a cursor would tell the reader that matches they may not see
            // exist (conventions, Lists). It costs what it examines (100,000 matches: ~150 ms on
            // SQLite, under a second on Postgres), for a reader seeing over maxScopedNodes nodes
            // without the root.
            const rest = await boundedSearch(ex, { ...req, after: scanned.scannedTo, limit: req.limit - scanned.hits.length }, Number.POSITIVE_INFINITY);
            return { hits: [...scanned.hits, ...rest.hits], scannedTo: null };
          }),
  };
};
