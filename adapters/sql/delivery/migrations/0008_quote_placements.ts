/**
 * Delivery migration 8: a quote's placement, written before its payment is authorized
 * (core/delivery/model/QuotePlacement.ts). One per quote; it leaves `authorizing` once, to
 * `placed` or `released`, and the database refuses any other change (a trigger), any delete,
 * and a change of what the authorization was asked with.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const guards = (dialect: SqlDialect): string[] =>
  dialect === "sqlite"
    ? [
        `CREATE TRIGGER dl_quote_placements_once BEFORE UPDATE ON dl_quote_placements ` +
          `WHEN OLD.state <> 'authorizing' OR NEW.quote_id <> OLD.quote_id OR NEW.merchant_id <> OLD.merchant_id OR NEW.payment_method <> OLD.payment_method ` +
          `BEGIN SELECT RAISE(ABORT, 'a placement leaves authorizing once and keeps what was authorized'); END`,
        `CREATE TRIGGER dl_quote_placements_kept BEFORE DELETE ON dl_quote_placements ` +
          `BEGIN SELECT RAISE(ABORT, 'placements are never deleted'); END`,
      ]
    : [
        // domainkit_refuse_change() comes from the kernel's append-only triggers.
        `CREATE TRIGGER dl_quote_placements_once BEFORE UPDATE ON dl_quote_placements FOR EACH ROW ` +
          `WHEN (OLD.state <> 'authorizing' OR NEW.quote_id <> OLD.quote_id OR NEW.merchant_id <> OLD.merchant_id OR NEW.payment_method <> OLD.payment_method) ` +
          `EXECUTE FUNCTION domainkit_refuse_change()`,
        `CREATE TRIGGER dl_quote_placements_kept BEFORE DELETE ON dl_quote_placements FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
      ];

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_quote_placements (
      quote_id ${c.text} PRIMARY KEY REFERENCES dl_quotes (id),
      merchant_id ${c.text} NOT NULL,
      payment_method ${c.text} NOT NULL,
      state ${c.text} NOT NULL CHECK (state IN ('authorizing', 'placed', 'released')),
      started_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL
    )`,
    ...guards(dialect),
  ];
};

export const deliveryMigration0008QuotePlacements: Migration = {
  version: 8,
  name: "quote_placements",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
