/**
 * Delivery migration 18: the chat access log (dl_chat_access_log). A dispatcher reading a
 * delivery's chat (GET /dispatch/deliveries/:id/messages) writes one row — who, which delivery,
 * when — as location reads do in dl_location_access_log (spec: Authentication 2, "sensitive
 * actions audited"). Append-only in the database; the rows name no message, so the chat
 * retention deletes the messages and leaves the log.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_chat_access_log (
      id ${c.text} PRIMARY KEY,
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      viewer_id ${c.text} NOT NULL CHECK (length(viewer_id) > 0),
      at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_chat_access_log_delivery ON dl_chat_access_log (delivery_id, id)`,
    ...appendOnlyTriggersSql(dialect, "dl_chat_access_log"),
  ];
};

export const deliveryMigration0018ChatAccessLog: Migration = {
  version: 18,
  name: "chat_access_log",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
