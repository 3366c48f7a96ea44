/**
 * Projects migration 7: attachment thumbnails. Columns on `pm_attachments` (added, so existing
 * rows keep no thumbnail state): a status only a clean attachment may have, a thumbnail object key
 * that is unique and required once ready, and positive dimensions bounded by the thumbnail size.
 * Column CHECKs (not table constraints), because SQLite's ALTER TABLE can only add those.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  const add = (column: string) => `ALTER TABLE pm_attachments ADD COLUMN ${column}`;
  return [
    add(`thumbnail_status ${text} CHECK (thumbnail_status IS NULL OR (thumbnail_status IN ('pending', 'ready', 'unsupported', 'failed') AND status = 'clean'))`),
    add(`thumbnail_key ${text} CHECK (thumbnail_key IS NULL OR thumbnail_status = 'ready')`),
    add(`thumbnail_content_type ${text} CHECK (thumbnail_content_type IS NULL OR length(thumbnail_content_type) BETWEEN 3 AND 255)`),
    add(`thumbnail_width ${int} CHECK (thumbnail_width IS NULL OR thumbnail_width BETWEEN 1 AND 4096)`),
    add(`thumbnail_height ${int} CHECK (thumbnail_height IS NULL OR thumbnail_height BETWEEN 1 AND 4096)`),
    // Added last so its CHECK may name the columns above: a ready thumbnail always has its object.
    add(`thumbnail_detail ${text} CHECK (thumbnail_status IS NULL OR thumbnail_status <> 'ready' OR (thumbnail_key IS NOT NULL AND thumbnail_content_type IS NOT NULL AND thumbnail_width IS NOT NULL AND thumbnail_height IS NOT NULL))`),
    `CREATE UNIQUE INDEX pm_attachments_thumbnail_key ON pm_attachments (thumbnail_key) WHERE thumbnail_key IS NOT NULL`,
  ];
};

/** Migration 7 of the project module. */
export const projectsMigration0007Thumbnails: Migration = {
  version: 7,
  name: "attachment_thumbnails",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
