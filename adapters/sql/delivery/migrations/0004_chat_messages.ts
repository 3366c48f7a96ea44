/**
 * Delivery migration 4: masked customer–courier chat (dl_chat_messages). Messages are kept while
 * the delivery is active and for DELIVERY_CHAT_RETENTION_SECONDS after it ended; the retention
 * pass deletes them, so the table is not append-only.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_chat_messages (
      id ${c.text} PRIMARY KEY,
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      sender_role ${c.text} NOT NULL CHECK (sender_role IN ('customer', 'courier')),
      sender_id ${c.text} NOT NULL,
      body ${c.text} NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
      sent_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_chat_messages_delivery ON dl_chat_messages (delivery_id, id)`,
  ];
};

export const deliveryMigration0004ChatMessages: Migration = {
  version: 4,
  name: "chat_messages",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
