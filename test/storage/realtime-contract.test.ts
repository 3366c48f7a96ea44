/**
 * Runs the RealtimeBus and WorkSignals kits on every adapter we have: the in-process bus, SQLite's
 * bus (in-process, and through the file for another process) and Postgres LISTEN/NOTIFY (the peer
 * bus on a second pool); work signals on SQLite and Postgres.
 */
import { Context, Layer } from "effect";
import t from "tap";
import { openPostgres, postgresConnectionString } from "../../adapters/postgres/openPostgres.js";
import { inProcessRealtimeBus } from "../../adapters/sql/InProcessRealtimeBus.js";
import { realtimeBus } from "../../adapters/sql/realtimeBus.js";
import type { ClosableRealtimeBus, SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { RealtimeBusPeer, realtimeBusSuite, workSignalsSuite, type AdapterFactory, type RealtimeBusKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlAdapterFactory, sqlCapabilities } from "../support/sqlAdapter.js";

/** A bus and its peer over one database: `peerOf` makes the peer (another process's, as near as a test gets). */
const busFactory =
  (dialect: Dialect, makeBus: (db: SqlDatabase) => Promise<ClosableRealtimeBus>, peerDatabase: (db: SqlDatabase) => Promise<SqlDatabase>): AdapterFactory<RealtimeBusKitPorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) });
    const other = await peerDatabase(db);
    const bus = await makeBus(db);
    const peer = await makeBus(other);
    return {
      layer: Layer.succeedContext(Context.make(RealtimeBus, bus).pipe(Context.add(RealtimeBusPeer, { bus: peer }), Context.add(Transactions, makeTransactions(db)))),
      close: async () => {
        await bus.close();
        await peer.close();
        if (other !== db) await other.close();
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

const sameDatabase = async (db: SqlDatabase) => db;
/** A second pool over the same Postgres database. */
const secondPool = (db: SqlDatabase) => openPostgres({ connectionString: postgresConnectionString(db)!, max: 2 });

const buses: ReadonlyArray<[string, AdapterFactory<RealtimeBusKitPorts>]> = [
  ["in-process", busFactory("sqlite", async (db) => inProcessRealtimeBus(db), sameDatabase)],
  ["sqlite", busFactory("sqlite", realtimeBus, sameDatabase)],
  ["postgres", busFactory("postgres", realtimeBus, secondPool)],
];

for (const [name, factory] of buses) {
  t.test(`RealtimeBus contract [${name}]`, (t) => realtimeBusSuite({ test: (name, fn) => t.test(name, fn), factory }));
}

for (const dialect of dialects) {
  t.test(`WorkSignals contract [${dialect}]`, (t) => workSignalsSuite({ test: (name, fn) => t.test(name, fn), factory: sqlAdapterFactory(dialect), supports: sqlCapabilities(dialect) }));
}
