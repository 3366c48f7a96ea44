/** The RealtimeBus of a database: LISTEN/NOTIFY on Postgres, on SQLite in-process and through the file (the driver decides). */
import type { ClosableRealtimeBus, SqlDatabase } from "./SqlDatabase.js";

/** A RealtimeBus for `db`; call `close()` on shutdown (it ends the LISTEN connection). */
export const realtimeBus = (db: SqlDatabase): Promise<ClosableRealtimeBus> => db.realtimeBus();
