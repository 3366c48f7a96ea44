/**
 * A database failure on demand: every UPDATE (or INSERT) of `table` fails (a trigger raising an
 * error) until the answered undo runs. For tests of what a failure between two steps leaves
 * behind, e.g. the recording of a provider's answer after the provider has acted.
 */
import { sql } from "kysely";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";

/** Makes `operation`s of `table` fail; answers the undo. */
export const refuseChanges = async (db: SqlDatabase, table: string, operation: "UPDATE" | "INSERT"): Promise<() => Promise<void>> => {
  const name = `refuse_${operation.toLowerCase()}_of_${table}`;
  if (db.dialect === "sqlite") {
    await sql.raw(`CREATE TRIGGER ${name} BEFORE ${operation} ON ${table} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`).execute(db.db);
    return async () => void (await sql.raw(`DROP TRIGGER ${name}`).execute(db.db));
  }
  await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`).execute(db.db);
  await sql.raw(`CREATE TRIGGER ${name} BEFORE ${operation} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db.db);
  return async () => {
    await sql.raw(`DROP TRIGGER ${name} ON ${table}`).execute(db.db);
    await sql.raw(`DROP FUNCTION ${name}()`).execute(db.db);
  };
};

/** Makes updates of `table` fail; answers the undo. */
export const refuseUpdates = (db: SqlDatabase, table: string): Promise<() => Promise<void>> => refuseChanges(db, table, "UPDATE");
