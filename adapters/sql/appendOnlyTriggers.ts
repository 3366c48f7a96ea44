/**
 * Triggers that make the database itself refuse UPDATE and DELETE on an append-only table
 * (task events, ledger entries): history cannot be rewritten even by a buggy repository.
 */
import type { SqlDialect } from "./SqlDatabase.js";

const identifier = (name: string): string => {
  // Interpolated into DDL, so only plain identifiers are accepted.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return name;
};

/** Statements (for a migration) that make `table` append-only on `dialect`. */
export const appendOnlyTriggersSql = (dialect: SqlDialect, table: string): string[] => {
  const t = identifier(table);
  if (dialect === "sqlite") {
    return [
      `CREATE TRIGGER IF NOT EXISTS ${t}_append_only_update BEFORE UPDATE ON ${t} ` +
        `BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
      `CREATE TRIGGER IF NOT EXISTS ${t}_append_only_delete BEFORE DELETE ON ${t} ` +
        `BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END`,
    ];
  }
  return [
    `CREATE OR REPLACE FUNCTION domainkit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
      `BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation'; END $$`,
    `DROP TRIGGER IF EXISTS ${t}_append_only ON ${t}`,
    `CREATE TRIGGER ${t}_append_only BEFORE UPDATE OR DELETE ON ${t} ` +
      `FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
    `DROP TRIGGER IF EXISTS ${t}_append_only_truncate ON ${t}`,
    `CREATE TRIGGER ${t}_append_only_truncate BEFORE TRUNCATE ON ${t} ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION domainkit_refuse_change()`,
  ];
};
