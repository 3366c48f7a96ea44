/** The RealtimeBus of a database: LISTEN/NOTIFY on Postgres, in-process on SQLite (the driver decides). */
import type { ClosableRealtimeBus, SqlDatabase } from "./SqlDatabase.js";

/** A RealtimeBus for `db`; call `close()` on shutdown (it ends the LISTEN connection). */
export const realtimeBus = (db: SqlDatabase): Promise<ClosableRealtimeBus> => db.realtimeBus();
