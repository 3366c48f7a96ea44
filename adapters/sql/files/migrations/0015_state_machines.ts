/**
 * File storage migration 15: the module's state machines and immutable records, held by the
 * database whoever writes (spec: "A file has many immutable versions", "File versions are
 * immutable", "A quarantined version is never downloadable", "Nodes have an optimistic version",
 * share tokens "expiring, revocable"; upload sessions settle once). The use cases already move
 * each row by a conditional update; these triggers refuse any other write:
 *   - fs_file_versions: what was stored (node, number, size, checksum, type, object, session,
 *     origin, author, time) never changes; a status moves only along core/files/VersionStatus.ts's
 *     table (listed here: a later edge needs a new migration); a detected type is recorded once;
 *     a version is deleted only with its trashed file (the retention purge);
 *   - fs_upload_sessions: what was declared never changes; a settled session (completed, aborted,
 *     expired, failed) never changes status, version or reservation again; an open session is
 *     never deleted (its reservation would be lost);
 *   - fs_upload_parts: a part's number, size, checksum and object never change (its ETag is
 *     reported while the session is open; a report racing the completion is the use case's to
 *     answer, so the database does not refuse it);
 *   - fs_nodes: id, workspace, kind, author and creation time never change; every update advances
 *     the version by exactly one; the root is never moved, renamed or trashed, and no other node
 *     becomes a root; only a trashed node is deleted;
 *   - fs_share_links: what a link grants (node, token hash, download, author, creation time) and
 *     its expiry never change; a revocation is final; a link is deleted only with its trashed node;
 *   - fs_extractions: queued → running | failed, running → succeeded | failed, and a finished one
 *     never changes; what it extracts never changes;
 *   - fs_audit_exports: pending → done | failed once.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

/** core/files/VersionStatus.ts's edges when this migration was written (a released migration never changes). */
const versionEdges: ReadonlyArray<readonly [string, string]> = [
  ["quarantined", "published"],
  ["quarantined", "blocked"],
  ["quarantined", "scan_failed"],
  ["published", "blocked"],
  ["blocked", "published"],
  ["scan_failed", "published"],
  ["scan_failed", "blocked"],
];
const extractionEdges: ReadonlyArray<readonly [string, string]> = [
  ["queued", "running"],
  ["queued", "failed"],
  ["running", "succeeded"],
  ["running", "failed"],
];
const auditExportEdges: ReadonlyArray<readonly [string, string]> = [
  ["pending", "done"],
  ["pending", "failed"],
];

const versionFixed = ["id", "workspace_id", "node_id", "number", "size_bytes", "sha256", "content_type", "object_key", "upload_session_id", "restored_from_id", "created_by", "created_at"];
const sessionFixed = ["id", "workspace_id", "parent_id", "node_id", "name", "size_bytes", "sha256", "content_type", "part_size_bytes", "part_count", "store_upload_id", "created_by", "created_at", "expires_at"];
const partFixed = ["session_id", "workspace_id", "part_number", "size_bytes", "sha256", "object_key"];
const nodeFixed = ["id", "workspace_id", "kind", "created_by", "created_at"];
const linkFixed = ["id", "workspace_id", "node_id", "token_hash", "allow_download", "created_by", "created_at"];
const extractionFixed = ["id", "workspace_id", "archive_node_id", "archive_version_id", "parent_id", "created_by", "created_at"];
const auditExportFixed = ["id", "workspace_id", "requested_by", "object_key", "created_at"];

/** `NEW.c IS DISTINCT FROM OLD.c OR ...` in the dialect's null-safe form. */
const anyChanged = (dialect: SqlDialect, columns: ReadonlyArray<string>): string =>
  columns.map((c) => (dialect === "postgres" ? `NEW.${c} IS DISTINCT FROM OLD.${c}` : `NEW.${c} IS NOT OLD.${c}`)).join(" OR ");
const changed = (dialect: SqlDialect, column: string): string => anyChanged(dialect, [column]);

/** True when the status moved along none of `edges`. */
const offTable = (dialect: SqlDialect, edges: ReadonlyArray<readonly [string, string]>): string =>
  `(${changed(dialect, "status")}) AND NOT (${edges.map(([from, to]) => `(OLD.status = '${from}' AND NEW.status = '${to}')`).join(" OR ")})`;

/** A trashed node of the row's workspace named by `column` of OLD. */
const trashedNode = (column: string): string =>
  `EXISTS (SELECT 1 FROM fs_nodes n WHERE n.workspace_id = OLD.workspace_id AND n.id = OLD.${column} AND n.trashed_at IS NOT NULL)`;

/** One rule: a name, the operation, the condition that refuses it, and the message. */
interface Rule {
  readonly table: string;
  readonly name: string;
  readonly op: "UPDATE" | "DELETE";
  readonly refuse: (dialect: SqlDialect) => string;
  readonly message: string;
}

const rules: ReadonlyArray<Rule> = [
  { table: "fs_file_versions", name: "fs_file_versions_stored_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, versionFixed), message: "fs_file_versions: a stored version never changes" },
  { table: "fs_file_versions", name: "fs_file_versions_status_table", op: "UPDATE", refuse: (d) => offTable(d, versionEdges), message: "fs_file_versions: a status moves only along the version table" },
  {
    table: "fs_file_versions",
    name: "fs_file_versions_detected_once",
    op: "UPDATE",
    refuse: (d) => `OLD.detected_content_type IS NOT NULL AND (${changed(d, "detected_content_type")})`,
    message: "fs_file_versions: a detected content type is recorded once",
  },
  { table: "fs_file_versions", name: "fs_file_versions_purged_only", op: "DELETE", refuse: () => `NOT ${trashedNode("node_id")}`, message: "fs_file_versions: a version is deleted only with its trashed file" },
  { table: "fs_upload_sessions", name: "fs_upload_sessions_declared_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, sessionFixed), message: "fs_upload_sessions: what a session declared never changes" },
  {
    table: "fs_upload_sessions",
    name: "fs_upload_sessions_settled_final",
    op: "UPDATE",
    refuse: (d) => `OLD.status <> 'open' AND (${anyChanged(d, ["status", "version_id", "reserved_bytes"])})`,
    message: "fs_upload_sessions: a settled session never changes again",
  },
  { table: "fs_upload_sessions", name: "fs_upload_sessions_open_kept", op: "DELETE", refuse: () => `OLD.status = 'open'`, message: "fs_upload_sessions: an open session (holding its reservation) is never deleted" },
  { table: "fs_upload_parts", name: "fs_upload_parts_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, partFixed), message: "fs_upload_parts: a part never changes" },
  { table: "fs_nodes", name: "fs_nodes_identity_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, nodeFixed), message: "fs_nodes: the identity of a node never changes" },
  { table: "fs_nodes", name: "fs_nodes_version_advances", op: "UPDATE", refuse: () => `NEW.version <> OLD.version + 1`, message: "fs_nodes: every change advances the version by one" },
  {
    table: "fs_nodes",
    name: "fs_nodes_root_fixed",
    op: "UPDATE",
    refuse: (d) =>
      `(OLD.parent_id IS NULL AND (NEW.parent_id IS NOT NULL OR NEW.trashed_at IS NOT NULL OR ${changed(d, "name")})) OR (OLD.parent_id IS NOT NULL AND NEW.parent_id IS NULL)`,
    message: "fs_nodes: the root is never moved, renamed or trashed, and no other node becomes a root",
  },
  { table: "fs_nodes", name: "fs_nodes_purged_only", op: "DELETE", refuse: () => `OLD.trashed_at IS NULL`, message: "fs_nodes: only a trashed node is deleted" },
  { table: "fs_share_links", name: "fs_share_links_grant_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, linkFixed), message: "fs_share_links: what a link grants never changes" },
  {
    table: "fs_share_links",
    name: "fs_share_links_expiry_fixed",
    op: "UPDATE",
    refuse: (d) => `OLD.expires_at IS NOT NULL AND (${changed(d, "expires_at")})`,
    message: "fs_share_links: the expiry of a link never changes",
  },
  {
    table: "fs_share_links",
    name: "fs_share_links_revocation_final",
    op: "UPDATE",
    refuse: (d) => `OLD.revoked_at IS NOT NULL AND (${changed(d, "revoked_at")})`,
    message: "fs_share_links: a revocation is final",
  },
  { table: "fs_share_links", name: "fs_share_links_purged_only", op: "DELETE", refuse: () => `NOT ${trashedNode("node_id")}`, message: "fs_share_links: a link is deleted only with its trashed node" },
  { table: "fs_extractions", name: "fs_extractions_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, extractionFixed), message: "fs_extractions: what an extraction extracts never changes" },
  { table: "fs_extractions", name: "fs_extractions_status_table", op: "UPDATE", refuse: (d) => offTable(d, extractionEdges), message: "fs_extractions: a status moves only along the extraction table" },
  {
    table: "fs_extractions",
    name: "fs_extractions_finished_final",
    op: "UPDATE",
    refuse: (d) => `OLD.status IN ('succeeded', 'failed') AND (${anyChanged(d, ["status", "reserved_bytes", "failure_code", "failure_detail", "file_count", "folder_count", "extracted_bytes", "finished_at"])})`,
    message: "fs_extractions: a finished extraction never changes",
  },
  { table: "fs_audit_exports", name: "fs_audit_exports_fixed", op: "UPDATE", refuse: (d) => anyChanged(d, auditExportFixed), message: "fs_audit_exports: what an export was asked never changes" },
  { table: "fs_audit_exports", name: "fs_audit_exports_status_table", op: "UPDATE", refuse: (d) => offTable(d, auditExportEdges), message: "fs_audit_exports: a status moves only along the export table" },
  {
    table: "fs_audit_exports",
    name: "fs_audit_exports_finished_final",
    op: "UPDATE",
    refuse: (d) => `OLD.status <> 'pending' AND (${anyChanged(d, ["status", "size_bytes", "sha256", "line_count", "error", "completed_at"])})`,
    message: "fs_audit_exports: a finished export never changes",
  },
];

const sqlite = rules.map(
  (r) =>
    `CREATE TRIGGER ${r.name} BEFORE ${r.op} ON ${r.table} FOR EACH ROW WHEN ${r.refuse("sqlite")} ` +
    `BEGIN SELECT RAISE(ABORT, '${r.message}'); END`,
);

// Postgres: one function per table and operation, testing its rules in order.
const postgres = [...new Set(rules.map((r) => `${r.table}:${r.op}`))].flatMap((key) => {
  const [table, op] = key.split(":") as [string, "UPDATE" | "DELETE"];
  const name = `${table}_${op === "UPDATE" ? "update" : "delete"}_rules`;
  const checks = rules
    .filter((r) => r.table === table && r.op === op)
    .map((r) => `IF ${r.refuse("postgres")} THEN RAISE EXCEPTION '${r.message}' USING ERRCODE = '${op === "DELETE" ? "restrict_violation" : "check_violation"}'; END IF;`)
    .join("\n     ");
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     ${checks}
     RETURN ${op === "DELETE" ? "OLD" : "NEW"};
   END $$`,
    `CREATE TRIGGER ${name} BEFORE ${op} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ];
});

/** Migration 15 of the file storage module. */
export const filesMigration0015: Migration = {
  version: 15,
  name: "state_machines",
  sqlite,
  postgres,
};
