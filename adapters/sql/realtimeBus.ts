/** Picks the RealtimeBus for a database: LISTEN/NOTIFY on Postgres, in-process on SQLite. */
import { postgresConnectionString } from "../postgres/openPostgres.js";
import { postgresRealtimeBus } from "../postgres/PostgresRealtimeBus.js";
import { inProcessRealtimeBus, type ClosableRealtimeBus } from "../sqlite/InProcessRealtimeBus.js";
import type { SqlDatabase } from "./SqlDatabase.js";
import { currentExecutor } from "./Transactions.js";

/** A RealtimeBus for `db`; call `close()` on shutdown (it ends the LISTEN connection). */
export const realtimeBus = async (db: SqlDatabase): Promise<ClosableRealtimeBus> => {
  if (db.dialect === "sqlite") return inProcessRealtimeBus(db);
  const connectionString = postgresConnectionString(db);
  if (connectionString === undefined) {
    throw new Error("realtimeBus: this Postgres database was not opened with openPostgres, so it cannot LISTEN");
  }
  return postgresRealtimeBus(connectionString, currentExecutor(db));
};
