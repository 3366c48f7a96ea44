/**
 * File storage migration 1: drives, nodes, versions, upload sessions and parts, ACL entries,
 * share links, the change log and the audit trail. The specification's column rules are
 * database constraints:
 * - quota: `used_bytes + reserved_bytes <= quota_bytes`, both never negative (CHECK);
 * - names unique among active siblings (partial UNIQUE index on (workspace, parent, name) of
 *   untrashed nodes), one root per workspace, names without `/`;
 * - exactly one current version per file, and only a published one (partial UNIQUE index on
 *   `node_id WHERE is_current`, CHECK), the node's `current_version_id` a version of that node
 *   (composite foreign key);
 * - an open session holds exactly its size in reservation, a settled one none; a completed one
 *   names its version;
 * - change sequence numbers strictly increase per workspace (a trigger refuses any other), and
 *   the change log and audit trail are append-only;
 * - every row carries its workspace, and foreign keys include it, so no row points across tenants.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  const pg = dialect === "postgres";
  const yes = pg ? "true" : "1";
  const versionFk = "FOREIGN KEY (workspace_id, id, current_version_id) REFERENCES fs_file_versions (workspace_id, node_id, id) DEFERRABLE INITIALLY DEFERRED";
  return [
    `CREATE TABLE fs_drives (
      workspace_id ${c.text} PRIMARY KEY,
      root_node_id ${c.text} NOT NULL UNIQUE,
      quota_bytes ${c.bigint} NOT NULL CHECK (quota_bytes >= 0),
      used_bytes ${c.bigint} NOT NULL CHECK (used_bytes >= 0),
      reserved_bytes ${c.bigint} NOT NULL CHECK (reserved_bytes >= 0),
      change_seq ${c.bigint} NOT NULL CHECK (change_seq >= 0),
      pruned_through_seq ${c.bigint} NOT NULL CHECK (pruned_through_seq >= 0 AND pruned_through_seq <= change_seq),
      acl_epoch ${c.bigint} NOT NULL CHECK (acl_epoch >= 1),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      CHECK (used_bytes + reserved_bytes <= quota_bytes)
    )`,
    `CREATE TABLE fs_nodes (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
      parent_id ${c.text},
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 255 AND name NOT IN ('.', '..') AND ${pg ? "strpos(name, '/') = 0" : "instr(name, '/') = 0"}),
      kind ${c.text} NOT NULL CHECK (kind IN ('file', 'folder')),
      version ${c.int} NOT NULL CHECK (version >= 1),
      current_version_id ${c.text},
      size_bytes ${c.bigint} CHECK (size_bytes >= 0),
      content_type ${c.text},
      sha256 ${c.text} CHECK (length(sha256) = 64),
      trashed_at ${c.time},
      trash_root_id ${c.text},
      created_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      UNIQUE (workspace_id, id),
      FOREIGN KEY (workspace_id, parent_id) REFERENCES fs_nodes (workspace_id, id),
      CHECK (parent_id IS NULL OR parent_id <> id),
      CHECK (kind = 'file' OR (current_version_id IS NULL AND size_bytes IS NULL AND sha256 IS NULL)),
      CHECK ((current_version_id IS NULL) = (sha256 IS NULL) AND (current_version_id IS NULL) = (size_bytes IS NULL)),
      CHECK ((trashed_at IS NULL) = (trash_root_id IS NULL))${pg ? "" : `,\n      ${versionFk}`}
    )`,
    // Names are unique among active siblings; the root (no parent) is one per workspace.
    `CREATE UNIQUE INDEX fs_nodes_active_name ON fs_nodes (workspace_id, parent_id, name) WHERE trashed_at IS NULL AND parent_id IS NOT NULL`,
    `CREATE UNIQUE INDEX fs_nodes_one_root ON fs_nodes (workspace_id) WHERE parent_id IS NULL`,
    `CREATE INDEX fs_nodes_children ON fs_nodes (parent_id, name, id)`,
    `CREATE INDEX fs_nodes_trash_root ON fs_nodes (trash_root_id)`,
    `CREATE TABLE fs_upload_sessions (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
      parent_id ${c.text} NOT NULL,
      node_id ${c.text},
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
      size_bytes ${c.bigint} NOT NULL CHECK (size_bytes >= 0),
      sha256 ${c.text} NOT NULL CHECK (length(sha256) = 64),
      content_type ${c.text} NOT NULL,
      part_size_bytes ${c.bigint} NOT NULL CHECK (part_size_bytes > 0),
      part_count ${c.int} NOT NULL CHECK (part_count >= 1),
      status ${c.text} NOT NULL CHECK (status IN ('open', 'completed', 'aborted', 'expired', 'failed')),
      reserved_bytes ${c.bigint} NOT NULL,
      version_id ${c.text},
      created_by ${c.text} NOT NULL,
      expires_at ${c.time} NOT NULL,
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      UNIQUE (workspace_id, id),
      FOREIGN KEY (workspace_id, parent_id) REFERENCES fs_nodes (workspace_id, id),
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id),
      CHECK (reserved_bytes = CASE WHEN status = 'open' THEN size_bytes ELSE 0 END),
      CHECK ((status = 'completed') = (version_id IS NOT NULL)),
      CHECK (expires_at > created_at)
    )`,
    `CREATE INDEX fs_upload_sessions_open ON fs_upload_sessions (workspace_id, status, expires_at)`,
    `CREATE TABLE fs_upload_parts (
      session_id ${c.text} NOT NULL,
      workspace_id ${c.text} NOT NULL,
      part_number ${c.int} NOT NULL CHECK (part_number >= 1),
      size_bytes ${c.bigint} NOT NULL CHECK (size_bytes >= 0),
      sha256 ${c.text} NOT NULL CHECK (length(sha256) = 64),
      object_key ${c.text} NOT NULL UNIQUE,
      PRIMARY KEY (session_id, part_number),
      FOREIGN KEY (workspace_id, session_id) REFERENCES fs_upload_sessions (workspace_id, id)
    )`,
    `CREATE TABLE fs_file_versions (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL,
      node_id ${c.text} NOT NULL,
      number ${c.int} NOT NULL CHECK (number >= 1),
      size_bytes ${c.bigint} NOT NULL CHECK (size_bytes >= 0),
      sha256 ${c.text} NOT NULL CHECK (length(sha256) = 64),
      content_type ${c.text} NOT NULL,
      object_key ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN ('quarantined', 'published', 'blocked', 'scan_failed')),
      is_current ${c.bool} NOT NULL,
      upload_session_id ${c.text} UNIQUE,
      restored_from_id ${c.text},
      scan_detail ${c.text},
      created_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      published_at ${c.time},
      UNIQUE (node_id, number),
      UNIQUE (workspace_id, node_id, id),
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id),
      FOREIGN KEY (workspace_id, upload_session_id) REFERENCES fs_upload_sessions (workspace_id, id),
      CHECK (NOT is_current OR status = 'published'),
      CHECK (status <> 'published' OR published_at IS NOT NULL)
    )`,
    // Exactly one current (published) version per file.
    `CREATE UNIQUE INDEX fs_file_versions_current ON fs_file_versions (node_id) WHERE is_current = ${yes}`,
    `CREATE INDEX fs_file_versions_status ON fs_file_versions (status, created_at)`,
    ...(pg ? [`ALTER TABLE fs_nodes ADD CONSTRAINT fs_nodes_current_version ${versionFk}`] : []),
    `CREATE TABLE fs_acl_entries (
      workspace_id ${c.text} NOT NULL,
      node_id ${c.text} NOT NULL,
      user_id ${c.text} NOT NULL,
      role ${c.text} NOT NULL CHECK (role IN ('viewer', 'editor', 'owner')),
      granted_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      PRIMARY KEY (node_id, user_id),
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id)
    )`,
    `CREATE INDEX fs_acl_entries_user ON fs_acl_entries (workspace_id, user_id, node_id)`,
    `CREATE TABLE fs_share_links (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL,
      node_id ${c.text} NOT NULL,
      token_hash ${c.text} NOT NULL UNIQUE CHECK (length(token_hash) = 64),
      allow_download ${c.bool} NOT NULL,
      created_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      expires_at ${c.time},
      revoked_at ${c.time},
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id),
      CHECK (expires_at IS NULL OR expires_at > created_at)
    )`,
    `CREATE INDEX fs_share_links_node ON fs_share_links (workspace_id, node_id)`,
    `CREATE TABLE fs_changes (
      workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
      seq ${c.bigint} NOT NULL CHECK (seq >= 1),
      node_id ${c.text} NOT NULL,
      type ${c.text} NOT NULL CHECK (type IN ('node.created', 'node.renamed', 'node.moved', 'node.trashed', 'node.restored', 'version.published')),
      version_id ${c.text},
      actor_id ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      PRIMARY KEY (workspace_id, seq),
      FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id)
    )`,
    ...(pg
      ? [
          `CREATE OR REPLACE FUNCTION fs_changes_monotonic() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
            `IF NEW.seq <= COALESCE((SELECT max(seq) FROM fs_changes WHERE workspace_id = NEW.workspace_id), 0) THEN ` +
            `RAISE EXCEPTION 'fs_changes: seq % is not above the last of workspace %', NEW.seq, NEW.workspace_id USING ERRCODE = 'check_violation'; END IF; ` +
            `RETURN NEW; END $$`,
          `CREATE TRIGGER fs_changes_monotonic BEFORE INSERT ON fs_changes FOR EACH ROW EXECUTE FUNCTION fs_changes_monotonic()`,
        ]
      : [
          `CREATE TRIGGER fs_changes_monotonic BEFORE INSERT ON fs_changes ` +
            `WHEN NEW.seq <= COALESCE((SELECT max(seq) FROM fs_changes WHERE workspace_id = NEW.workspace_id), 0) ` +
            `BEGIN SELECT RAISE(ABORT, 'fs_changes: seq is not above the last of its workspace'); END`,
        ]),
    ...appendOnlyTriggersSql(dialect, "fs_changes"),
    `CREATE TABLE fs_audit (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL,
      actor_id ${c.text} NOT NULL,
      action ${c.text} NOT NULL CHECK (length(action) BETWEEN 1 AND 100),
      target_id ${c.text} NOT NULL,
      reason ${c.text} CHECK (length(reason) BETWEEN 1 AND 1000),
      data ${c.json} NOT NULL,
      created_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX fs_audit_workspace ON fs_audit (workspace_id, created_at, id)`,
    ...appendOnlyTriggersSql(dialect, "fs_audit"),
  ];
};

/** Migration 1 of the file storage module. */
export const filesMigration0001: Migration = {
  version: 1,
  name: "files_tables",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
