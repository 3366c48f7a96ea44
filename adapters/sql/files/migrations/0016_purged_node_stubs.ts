/**
 * File storage migration 16: `fs_nodes.purged_at`, the mark of a node the trash retention purge
 * reduced to a stub (spec: "A deletion leaves a tombstone kept through the cursor window"). The
 * purge removes a trashed subtree's bytes, versions, links and thumbnails at trash retention and
 * keeps its nodes only as what the change feed needs for the tombstone (id, parent, kind, trash
 * time, grants); the change retention deletes them once their changes leave the window. The
 * database holds the stub:
 *   - a node is marked purged only while trashed, with no content (no current version, size,
 *     checksum or type), no legal hold, and its id as its name;
 *   - a purged node never changes again (never restored, renamed, moved or unmarked).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const stubMessage = "fs_nodes: a purged node is a trashed stub without name or content";
const finalMessage = "fs_nodes: a purged node never changes";

/** True when NEW is marked purged but is not a stub. */
const notAStub = (dialect: SqlDialect): string =>
  `NEW.purged_at IS NOT NULL AND (NEW.trashed_at IS NULL OR NEW.current_version_id IS NOT NULL OR NEW.size_bytes IS NOT NULL ` +
  `OR NEW.sha256 IS NOT NULL OR NEW.content_type IS NOT NULL OR NEW.name <> NEW.id OR NEW.legal_hold = ${dialect === "postgres" ? "true" : "1"})`;

const sqlite = [
  `ALTER TABLE fs_nodes ADD COLUMN purged_at ${columnTypes("sqlite").time}`,
  `CREATE TRIGGER fs_nodes_purged_final BEFORE UPDATE ON fs_nodes FOR EACH ROW WHEN OLD.purged_at IS NOT NULL BEGIN SELECT RAISE(ABORT, '${finalMessage}'); END`,
  `CREATE TRIGGER fs_nodes_purged_stub BEFORE UPDATE ON fs_nodes FOR EACH ROW WHEN ${notAStub("sqlite")} BEGIN SELECT RAISE(ABORT, '${stubMessage}'); END`,
  `CREATE TRIGGER fs_nodes_purged_inserted BEFORE INSERT ON fs_nodes FOR EACH ROW WHEN NEW.purged_at IS NOT NULL BEGIN SELECT RAISE(ABORT, '${stubMessage}'); END`,
  `CREATE INDEX fs_nodes_purged ON fs_nodes (workspace_id, purged_at) WHERE purged_at IS NOT NULL`,
];

const postgres = [
  `ALTER TABLE fs_nodes ADD COLUMN purged_at ${columnTypes("postgres").time}`,
  `CREATE FUNCTION fs_nodes_purged_rules() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' AND NEW.purged_at IS NOT NULL THEN RAISE EXCEPTION '${stubMessage}' USING ERRCODE = 'check_violation'; END IF;
     IF TG_OP = 'UPDATE' AND OLD.purged_at IS NOT NULL THEN RAISE EXCEPTION '${finalMessage}' USING ERRCODE = 'check_violation'; END IF;
     IF ${notAStub("postgres")} THEN RAISE EXCEPTION '${stubMessage}' USING ERRCODE = 'check_violation'; END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER fs_nodes_purged_rules BEFORE INSERT OR UPDATE ON fs_nodes FOR EACH ROW EXECUTE FUNCTION fs_nodes_purged_rules()`,
  `CREATE INDEX fs_nodes_purged ON fs_nodes (workspace_id, purged_at) WHERE purged_at IS NOT NULL`,
];

/** Migration 16 of the file storage module. */
export const filesMigration0016: Migration = {
  version: 16,
  name: "purged_node_stubs",
  sqlite,
  postgres,
};
