/** All kernel storage ports over one SqlDatabase, as one Layer. */
import { Layer } from "effect";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { Ids } from "../../ports/Ids.js";
import { Inbox } from "../../ports/Inbox.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { WorkSignals } from "../../ports/WorkSignals.js";
import { ids } from "../system/Ids.js";
import { featuresFor } from "./featuresFor.js";
import { makeSqlChannelLog } from "./SqlChannelLog.js";
import type { SqlDatabase } from "./SqlDatabase.js";
import { makeSqlIdempotencyStore } from "./SqlIdempotencyStore.js";
import { makeSqlInbox } from "./SqlInbox.js";
import { makeSqlJobQueue, makeSqlJobs } from "./SqlJobs.js";
import { makeSqlOutbox, makeSqlOutboxRelayStore } from "./SqlOutbox.js";
import { makeSqlUserEpochs } from "./SqlUserEpochs.js";
import { makeTransactions } from "./Transactions.js";

/** Every port the kernel storage layer provides. */
export type StoragePorts =
  | Transactions
  | Outbox
  | OutboxRelayStore
  | Inbox
  | Jobs
  | JobQueue
  | IdempotencyStore
  | UserEpochs
  | ChannelLog
  | WorkSignals
  | Ids;

/** The WorkSignals for `db` (LISTEN/NOTIFY on Postgres, in-process after commit on SQLite). */
export const workSignalsFor = (db: SqlDatabase): WorkSignals => db.workSignals();

/** Provides every kernel storage port over `db` (which must be migrated). */
export const storageLayer = (db: SqlDatabase): Layer.Layer<StoragePorts> => {
  const f = featuresFor(db);
  const tx = makeTransactions(db);
  const signals = workSignalsFor(db);
  return Layer.mergeAll(
    Layer.succeed(Transactions, tx),
    Layer.succeed(WorkSignals, signals),
    Layer.succeed(Outbox, makeSqlOutbox(db, f, signals)),
    Layer.succeed(OutboxRelayStore, makeSqlOutboxRelayStore(db, f, signals)),
    Layer.succeed(Inbox, makeSqlInbox(db, f)),
    Layer.succeed(Jobs, makeSqlJobs(db, f, tx, signals)),
    Layer.succeed(JobQueue, makeSqlJobQueue(db, f, tx, signals)),
    Layer.succeed(IdempotencyStore, makeSqlIdempotencyStore(db, f)),
    Layer.succeed(UserEpochs, makeSqlUserEpochs(db)),
    Layer.succeed(ChannelLog, makeSqlChannelLog(db, f, tx)),
    Layer.succeed(Ids, ids),
  );
};
