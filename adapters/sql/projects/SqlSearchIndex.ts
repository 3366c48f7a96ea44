/**
 * The SearchIndex port: `pm_search_docs` plus SQLite FTS5 (`pm_search_fts`, rowid = the
 * document's `rid`) or a Postgres tsvector column with a GIN index ('simple' configuration, so
 * no language stemming on either side). The dialect switch stays in this file. Queries join the
 * live task and filter by the project scope (ids, or the caller's memberships) before ORDER BY id DESC LIMIT.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import { SearchHit } from "../../../core/projects/model/SearchHit.js";
import type { SearchDocument, SearchIndex } from "../../../ports/projects/SearchIndex.js";
import { featuresFor } from "../featuresFor.js";
import { fts5PrefixQuery, tsqueryPrefix } from "../FullTextQuery.js";
import { rowCodec, type Row } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { isEmptyScope, projectScopeSql } from "./ProjectScopeSql.js";

/** The query executor `runQuery` hands a query. */
type Executor = Parameters<Parameters<typeof runQuery>[1]>[0];

const upsertSqlite = async (ex: Executor, doc: SearchDocument): Promise<boolean> => {
  const existing = await ex.selectFrom("pm_search_docs").select(["rid", "version"]).where("id", "=", doc.id).executeTakeFirst();
  if (existing !== undefined && toNumber(existing.version) >= doc.version) return false;
  const row = { kind: doc.kind, workspace_id: doc.workspaceId, project_id: doc.projectId, task_id: doc.taskId, body: doc.text, version: doc.version };
  let rowid: number;
  if (existing === undefined) {
    const inserted = await ex.insertInto("pm_search_docs").values({ id: doc.id, ...row }).returning("rid").executeTakeFirstOrThrow();
    rowid = toNumber(inserted.rid);
  } else {
    rowid = toNumber(existing.rid);
    await ex.updateTable("pm_search_docs").set(row).where("id", "=", doc.id).execute();
    await sql`DELETE FROM pm_search_fts WHERE rowid = ${rowid}`.execute(ex);
  }
  await sql`INSERT INTO pm_search_fts (rowid, body) VALUES (${rowid}, ${doc.text})`.execute(ex);
  return true;
};

const upsertPostgres = async (ex: Executor, doc: SearchDocument): Promise<boolean> => {
  const result = await sql<{ id: string }>`
    INSERT INTO pm_search_docs (id, kind, workspace_id, project_id, task_id, body, version, tsv)
    VALUES (${doc.id}, ${doc.kind}, ${doc.workspaceId}, ${doc.projectId}, ${doc.taskId}, ${doc.text}, ${doc.version}, to_tsvector('simple', ${doc.text}))
    ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = excluded.version, tsv = excluded.tsv
    WHERE pm_search_docs.version < excluded.version
    RETURNING id`.execute(ex);
  return result.rows.length === 1;
};

/** Several documents of distinct ids in one statement (ON CONFLICT may touch a row only once per statement). */
const upsertManyPostgres = async (ex: Executor, docs: ReadonlyArray<SearchDocument>): Promise<void> => {
  const rows = docs.map(
    (doc) => sql`(${doc.id}, ${doc.kind}, ${doc.workspaceId}, ${doc.projectId}, ${doc.taskId}, ${doc.text}, ${doc.version}::integer, to_tsvector('simple', ${doc.text}))`,
  );
  await sql`
    INSERT INTO pm_search_docs (id, kind, workspace_id, project_id, task_id, body, version, tsv)
    VALUES ${sql.join(rows)}
    ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = excluded.version, tsv = excluded.tsv
    WHERE pm_search_docs.version < excluded.version`.execute(ex);
};

/** Documents per statement on SQLite (7 parameters each, far below its 32,766). */
const sqliteDocsPerStatement = 500;

/**
 * Several documents of distinct ids on SQLite in three statements per 500 (not three or four per
 * document): one upsert that keeps a newer stored version and answers the rows it wrote, then
 * their full-text rows replaced (a document's kind, tenant, project and task never change).
 */
const upsertManySqlite = async (ex: Executor, docs: ReadonlyArray<SearchDocument>): Promise<void> => {
  for (let from = 0; from < docs.length; from += sqliteDocsPerStatement) {
    const rows = docs
      .slice(from, from + sqliteDocsPerStatement)
      .map((doc) => sql`(${doc.id}, ${doc.kind}, ${doc.workspaceId}, ${doc.projectId}, ${doc.taskId}, ${doc.text}, ${doc.version})`);
    const written = await sql<{ rid: number | bigint; body: string }>`
      INSERT INTO pm_search_docs (id, kind, workspace_id, project_id, task_id, body, version)
      VALUES ${sql.join(rows)}
      ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = excluded.version
      WHERE pm_search_docs.version < excluded.version
      RETURNING rid, body`.execute(ex);
    if (written.rows.length === 0) continue;
    const rids = written.rows.map((row) => toNumber(row.rid));
    await sql`DELETE FROM pm_search_fts WHERE rowid IN (${sql.join(rids)})`.execute(ex);
    await sql`INSERT INTO pm_search_fts (rowid, body) VALUES ${sql.join(written.rows.map((row, i) => sql`(${rids[i]}, ${row.body})`))}`.execute(ex);
  }
};

/** Builds the search index over `db`. */
export const makeSqlSearchIndex = (db: SqlDatabase): SearchIndex => {
  const hits = rowCodec(SearchHit, featuresFor(db));
  return {
  upsert: (doc) =>
    runQuery(db, (ex) => (db.dialect === "sqlite" ? upsertSqlite(ex, doc) : upsertPostgres(ex, doc))).pipe(
      withSpan("SearchIndex.upsert"),
    ),
  upsertMany: (docs) =>
    docs.length === 0
      ? Effect.void
      : runQuery(db, async (ex) => {
          if (new Set(docs.map((doc) => doc.id)).size !== docs.length) throw new Error("SearchIndex.upsertMany: document ids must be distinct");
          return db.dialect === "postgres" ? upsertManyPostgres(ex, docs) : upsertManySqlite(ex, docs);
        }).pipe(withSpan("SearchIndex.upsertMany")),
  search: ({ terms, scope, beforeId, limit }) =>
    isEmptyScope(scope) || terms.length === 0
      ? Effect.succeed([])
      : runQuery(db, async (ex) => {
          // Terms are letters and digits only (core/projects/Search.ts), and bound as parameters.
          const match =
            db.dialect === "sqlite"
              ? sql`d.rid IN (SELECT rowid FROM pm_search_fts WHERE pm_search_fts MATCH ${fts5PrefixQuery(terms)})`
              : sql`d.tsv @@ to_tsquery('simple', ${tsqueryPrefix(terms)})`;
          const before = beforeId === undefined ? sql`` : sql`AND d.id < ${beforeId}`;
          const result = await sql<Row>`
            SELECT d.id, d.kind, d.workspace_id, d.project_id, d.task_id, d.body AS text
            FROM pm_search_docs d JOIN pm_tasks t ON t.id = d.task_id AND t.deleted_at IS NULL
            WHERE ${match} AND ${projectScopeSql("d", scope)} ${before}
            ORDER BY d.id DESC LIMIT ${limit}`.execute(ex);
          return result.rows.map(hits.fromRow);
        }).pipe(withSpan("SearchIndex.search")),
  };
};
