/**
 * A database failure on demand: every UPDATE of `table` fails (a trigger raising an error) until
 * the answered undo runs. For tests of what a failure between two steps leaves behind, e.g. the
 * recording of a provider's answer after the provider has acted.
 */
import { sql } from "kysely";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";

/** Makes updates of `table` fail; answers the undo. */
export const refuseUpdates = async (db: SqlDatabase, table: string): Promise<() => Promise<void>> => {
  const name = `refuse_update_of_${table}`;
  if (db.dialect === "sqlite") {
    await sql.raw(`CREATE TRIGGER ${name} BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`).execute(db.db);
    return async () => void (await sql.raw(`DROP TRIGGER ${name}`).execute(db.db));
  }
  await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`).execute(db.db);
  await sql.raw(`CREATE TRIGGER ${name} BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db.db);
  return async () => {
    await sql.raw(`DROP TRIGGER ${name} ON ${table}`).execute(db.db);
    await sql.raw(`DROP FUNCTION ${name}()`).execute(db.db);
  };
};
