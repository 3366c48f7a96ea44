/**
 * Delivery migration 16: a placement's payment-method token is kept only while its authorization
 * may be sent again (core/delivery/PaymentMethodRetention.ts). `release_confirmed_at` records when
 * the provider confirmed a released placement's authorization canceled. The guard of migration 8
 * (a placement leaves `authorizing` once and keeps what was authorized) now allows exactly two
 * more changes: confirming a release once, and replacing the token of a `placed` placement, or of
 * a `released` one whose release was confirmed, by "[REDACTED]" — each with every other column
 * unchanged. DELETE stays refused. A partial index keeps the retention pass to unredacted rows.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const mask = "'[REDACTED]'";
const columns = ["quote_id", "merchant_id", "payment_method", "state", "started_at", "updated_at", "release_confirmed_at"];

const permitted = (dialect: SqlDialect): string => {
  const same = (cs: ReadonlyArray<string>) => cs.map((c) => (dialect === "sqlite" ? `NEW.${c} IS OLD.${c}` : `NEW.${c} IS NOT DISTINCT FROM OLD.${c}`)).join(" AND ");
  const but = (...changed: string[]) => same(columns.filter((c) => !changed.includes(c)));
  // Migration 8's rule: while authorizing, anything but what was authorized (and no confirmation yet).
  const leaves = `(OLD.state = 'authorizing' AND NEW.release_confirmed_at IS NULL AND ${same(["quote_id", "merchant_id", "payment_method"])})`;
  const confirms = `(OLD.state = 'released' AND OLD.release_confirmed_at IS NULL AND NEW.release_confirmed_at IS NOT NULL AND ${but("release_confirmed_at")})`;
  const redacts = `((OLD.state = 'placed' OR (OLD.state = 'released' AND OLD.release_confirmed_at IS NOT NULL)) AND OLD.payment_method <> ${mask} AND NEW.payment_method = ${mask} AND ${but("payment_method")})`;
  return `${leaves} OR ${confirms} OR ${redacts}`;
};

const message = "a placement leaves authorizing once and keeps what was authorized, but for its release confirmation and the redaction of its token";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  const index = `CREATE INDEX dl_quote_placements_token_kept ON dl_quote_placements (state) WHERE payment_method <> ${mask}`;
  if (dialect === "sqlite") {
    return [
      `ALTER TABLE dl_quote_placements ADD COLUMN release_confirmed_at ${c.time}`,
      `DROP TRIGGER dl_quote_placements_once`,
      `CREATE TRIGGER dl_quote_placements_once BEFORE UPDATE ON dl_quote_placements WHEN NOT (${permitted("sqlite")}) BEGIN SELECT RAISE(ABORT, '${message}'); END`,
      index,
    ];
  }
  return [
    `ALTER TABLE dl_quote_placements ADD COLUMN release_confirmed_at ${c.time}`,
    `DROP TRIGGER dl_quote_placements_once ON dl_quote_placements`,
    `CREATE FUNCTION dl_quote_placements_once() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NOT (${permitted("postgres")}) THEN
         RAISE EXCEPTION '${message}' USING ERRCODE = 'restrict_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER dl_quote_placements_once BEFORE UPDATE ON dl_quote_placements FOR EACH ROW EXECUTE FUNCTION dl_quote_placements_once()`,
    index,
  ];
};

export const deliveryMigration0016PaymentMethodRedaction: Migration = {
  version: 16,
  name: "payment_method_redaction",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
