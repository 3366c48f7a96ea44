/**
 * Payments migration 32: an inbox row's payload may be minimized once. Rows stored before the
 * inbox kept only what the core reads hold the provider's whole payload; `payload_minimized_at`
 * marks a payload as minimized (the inbox adapter sets it on insert, so only older rows are NULL;
 * nothing is backfilled). The append-only UPDATE trigger is replaced by one that refuses every
 * UPDATE except that one rewrite: only `payload` and the marker change, the marker from NULL to a
 * time (a second rewrite is refused). DELETE and TRUNCATE stay refused.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const message = "payment_provider_events is append-only; only an unminimized payload may be minimized, once";

// Every column but payload and the marker (SQLite has no row-to-JSON to compare a row whole).
const keptColumns = ["id", "provider_event_id", "type", "status", "received_at", "processed_at", "outcome", "merchant_id", "provider_object", "occurred_at"];

const sqlite = (): string[] => [
  `ALTER TABLE payment_provider_events ADD COLUMN payload_minimized_at ${columnTypes("sqlite").time}`,
  `DROP TRIGGER payment_provider_events_append_only_update`,
  `CREATE TRIGGER payment_provider_events_minimized_once BEFORE UPDATE ON payment_provider_events ` +
    `WHEN NOT (OLD.payload_minimized_at IS NULL AND NEW.payload_minimized_at IS NOT NULL AND ` +
    `${keptColumns.map((c) => `NEW.${c} IS OLD.${c}`).join(" AND ")}) ` +
    `BEGIN SELECT RAISE(ABORT, '${message}'); END`,
];

const postgres = (): string[] => [
  `ALTER TABLE payment_provider_events ADD COLUMN payload_minimized_at ${columnTypes("postgres").time}`,
  `CREATE FUNCTION payment_provider_events_minimized_once() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
    `BEGIN ` +
    `IF OLD.payload_minimized_at IS NULL AND NEW.payload_minimized_at IS NOT NULL ` +
    `AND (to_jsonb(NEW) - 'payload' - 'payload_minimized_at') = (to_jsonb(OLD) - 'payload' - 'payload_minimized_at') THEN RETURN NEW; END IF; ` +
    `RAISE EXCEPTION '${message}' USING ERRCODE = 'restrict_violation'; ` +
    `END $$`,
  `DROP TRIGGER payment_provider_events_append_only ON payment_provider_events`,
  `CREATE TRIGGER payment_provider_events_append_only BEFORE DELETE ON payment_provider_events ` +
    `FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
  `CREATE TRIGGER payment_provider_events_minimized_once BEFORE UPDATE ON payment_provider_events ` +
    `FOR EACH ROW EXECUTE FUNCTION payment_provider_events_minimized_once()`,
];

/** Migration 32 of module "payments". */
export const paymentsMigration0032InboxPayloadMinimizedOnce: Migration = {
  version: 32,
  name: "inbox_payload_minimized_once",
  sqlite: sqlite(),
  postgres: postgres(),
};
