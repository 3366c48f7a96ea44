/**
 * File storage migration 9: the search index of a drive's nodes (spec, background work: "search
 * indexing"), one document per node — its name's words, the detected content type and the words of
 * its current version's text (text-like versions only, bounded) — with the version the text is of
 * and the change (`seq`) the document describes. As the project module's search: a table of
 * documents plus an FTS5 table on SQLite (rowid = the document's `rid`; tokenizer unicode61) or a
 * tsvector with a GIN index on Postgres ('simple': no stemming on either side). The database keeps
 * the full-text side in step with the documents, whoever writes them (the indexer, the trash
 * purge): triggers on SQLite (as the commerce catalog's), a generated column on Postgres. The
 * SQLite full-text row carries the workspace as a token (`w<hex of its id>`, as the catalog's store),
 * so a query matches within one workspace. A document belongs to a node of its workspace
 * (composite foreign key): the purge deletes it with the node.
 * The nodes already stored get their document here (name and type, as of the drive's last change),
 * with `version_id` null: the search backfill job (core/files/SearchBackfill.ts) finds them by
 * the partial index `fs_search_documents_awaiting_version` (a type without a version: only this
 * backfill writes one; the indexer writes a type only with its version), sets their current
 * version and queues its text.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

/** The most text a document holds (characters); the indexer stores far less (FilesSettings.searchTextMaxBytes). */
const maxBodyLength = 1_048_576;

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  const pg = dialect === "postgres";
  // SQLite: an INTEGER PRIMARY KEY aliases the rowid, so VACUUM keeps the FTS rows pointing right.
  const key = pg ? "" : "rid INTEGER PRIMARY KEY,\n      ";
  const table = `CREATE TABLE fs_search_documents (
      ${key}workspace_id ${c.text} NOT NULL,
      node_id ${c.text} NOT NULL,
      name ${c.text} NOT NULL,
      content_type ${c.text},
      version_id ${c.text},
      body ${c.text} NOT NULL DEFAULT '' CHECK (length(body) <= ${maxBodyLength}),
      seq ${c.bigint} NOT NULL CHECK (seq >= 1),${pg ? "\n      tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', name || ' ' || body)) STORED," : ""}
      ${pg ? "PRIMARY KEY" : "UNIQUE"} (workspace_id, node_id),
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id),
      CHECK (version_id IS NOT NULL OR body = '')
    )`;
  // Every node but the root, its name as words (as core/kernel/SearchTerms.ts `searchableText`; the
  // FTS5 tokenizer splits SQLite's), its current version's type.
  const backfill = (name: string) => `INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
    SELECT n.workspace_id, n.id, ${name}, COALESCE(v.detected_content_type, v.content_type), NULL, '', d.change_seq
    FROM fs_nodes n JOIN fs_drives d ON d.workspace_id = n.workspace_id
    LEFT JOIN fs_file_versions v ON v.workspace_id = n.workspace_id AND v.id = n.current_version_id
    WHERE n.parent_id IS NOT NULL AND d.change_seq >= 1`;
  // The documents the backfill wrote that still wait for their version (few, then none).
  const awaitingVersion = `CREATE INDEX fs_search_documents_awaiting_version ON fs_search_documents (workspace_id, node_id)
    WHERE version_id IS NULL AND content_type IS NOT NULL`;
  if (pg) {
    return [
      table,
      `CREATE INDEX fs_search_documents_tsv ON fs_search_documents USING GIN (tsv)`,
      backfill(`trim(regexp_replace(lower(n.name), '[^[:alnum:]]+', ' ', 'g'))`),
      awaitingVersion,
    ];
  }
  const ftsRow = (row: string) => `(${row}.rid, 'w' || lower(hex(${row}.workspace_id)), ${row}.name, ${row}.body)`;
  return [
    table,
    `CREATE VIRTUAL TABLE fs_search_fts USING fts5(workspace, name, body, tokenize = 'unicode61 remove_diacritics 2')`,
    `CREATE TRIGGER fs_search_documents_fts_insert AFTER INSERT ON fs_search_documents BEGIN ` +
      `INSERT INTO fs_search_fts (rowid, workspace, name, body) VALUES ${ftsRow("new")}; END`,
    `CREATE TRIGGER fs_search_documents_fts_update AFTER UPDATE OF name, body ON fs_search_documents BEGIN ` +
      `DELETE FROM fs_search_fts WHERE rowid = old.rid; INSERT INTO fs_search_fts (rowid, workspace, name, body) VALUES ${ftsRow("new")}; END`,
    `CREATE TRIGGER fs_search_documents_fts_delete AFTER DELETE ON fs_search_documents BEGIN DELETE FROM fs_search_fts WHERE rowid = old.rid; END`,
    backfill("lower(n.name)"),
    awaitingVersion,
  ];
};

/** Migration 9 of the file storage module. */
export const filesMigration0009: Migration = {
  version: 9,
  name: "node_search",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
