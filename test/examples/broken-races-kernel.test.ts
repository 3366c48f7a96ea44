/**
 * The kernel kits' race cases catch a check-then-act adapter (raceBreaks.ts): each broken adapter
 * is our Postgres adapter with one method answering from a check made before it acted, which is
 * right one call at a time and wrong when calls overlap. The unbroken adapter through the same
 * wrapper is the control.
 */
import { Effect } from "effect";
import t from "tap";
import type { DialectFeatures } from "../../adapters/sql/DialectFeatures.js";
import { runQuery } from "../../adapters/sql/runQuery.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeSqlJobQueue } from "../../adapters/sql/SqlJobs.js";
import { toMessage } from "../../adapters/sql/SqlOutbox.js";
import type { OutboxMessage } from "../../ports/Outbox.js";
import { storageLayer } from "../../adapters/sql/storageLayer.js";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { Inbox } from "../../ports/Inbox.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import { OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { channelLogCases, idempotencyCases, inboxCases, jobsCases, outboxCases, userEpochsCases } from "../contract/index.js";
import { brokenPostgres, checkThenAct, proveRaces, raceFailures, type BrokenRace } from "./raceBreaks.js";

/** The database's dialect features with row locks taken out: a claim's pick locks nothing and skips nothing. */
const unlocked = (db: SqlDatabase): DialectFeatures => ({ ...db.features, skipLocked: (query) => query });

/** A relay's claim as two statements: read the first due messages no one holds, then lease them (whoever else read them too). */
const readThenLease =
  (db: SqlDatabase) =>
  ({ workerId, now, limit, leaseMs }: { workerId: string; now: Date; limit: number; leaseMs: number }): Effect.Effect<ReadonlyArray<OutboxMessage>> =>
    Effect.gen(function* () {
      const f = db.features;
      const due = yield* runQuery(db, (ex) =>
        ex
          .selectFrom("outbox")
          .select("seq")
          .where("status", "=", "pending")
          .where("next_attempt_at", "<=", f.timeToDb(now))
          .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", f.timeToDb(now))]))
          .orderBy("seq")
          .limit(limit)
          .execute(),
      );
      if (due.length === 0) return [];
      const rows = yield* runQuery(db, (ex) =>
        ex
          .updateTable("outbox")
          .set((eb) => ({ locked_by: workerId, locked_until: f.timeToDb(new Date(now.getTime() + leaseMs)), attempts: eb("attempts", "+", 1) }))
          .where("seq", "in", due.map((row) => row.seq))
          .returningAll()
          .execute(),
      );
      return rows.map((row) => toMessage(f, row));
    });

t.test("the Postgres adapter through the wrapper, unbroken, passes the races (the control)", async (t) => {
  const unbroken = brokenPostgres(storageLayer, Inbox, (inbox) => inbox);
  t.same(await raceFailures(inboxCases, "inbox: of concurrent claims of one event exactly one is true", unbroken), []);
  t.same(await raceFailures(outboxCases, "outbox: concurrent relays never hold the same message at once", brokenPostgres(storageLayer, OutboxRelayStore, (r) => r)), []);
});

const races: ReadonlyArray<BrokenRace> = [
  {
    rule: "outbox: concurrent relays never hold the same message at once",
    broken: "a relay's claim that reads the due messages, then leases them (two statements, no lock)",
    run: () =>
      raceFailures(outboxCases, "outbox: concurrent relays never hold the same message at once", brokenPostgres(storageLayer, OutboxRelayStore, (r, { db }) => ({ ...r, claimBatch: readThenLease(db) }))),
  },
  {
    rule: "jobs: concurrent workers never hold the same job at once",
    broken: "a worker's claim that picks its jobs without locking them (no FOR UPDATE SKIP LOCKED)",
    run: () =>
      raceFailures(jobsCases, "jobs: concurrent workers never hold the same job at once", brokenPostgres(storageLayer, JobQueue, (_, { db, tx }) => makeSqlJobQueue(db, unlocked(db), tx))),
  },
  {
    rule: "jobs: concurrent schedules of one key create exactly one job",
    broken: "a keyed schedule answered from a look before inserting",
    run: () =>
      raceFailures(jobsCases, "jobs: concurrent schedules of one key create exactly one job", brokenPostgres(storageLayer, Jobs, (j, { tx }) => ({ ...j, schedule: (s) => checkThenAct(tx, j.schedule(s)) }))),
  },
  {
    rule: "inbox: of concurrent claims of one event exactly one is true",
    broken: "a claim answered from a look before inserting",
    run: () =>
      raceFailures(inboxCases, "inbox: of concurrent claims of one event exactly one is true", brokenPostgres(storageLayer, Inbox, (i, { tx }) => ({ ...i, claim: (c, e) => checkThenAct(tx, i.claim(c, e)) }))),
  },
  {
    rule: "inbox: of concurrent overlapping claimMany calls each event is claimed exactly once",
    broken: "a claimMany that reads which events are claimed, then inserts and answers the others",
    run: () =>
      raceFailures(
        inboxCases,
        "inbox: of concurrent overlapping claimMany calls each event is claimed exactly once",
        brokenPostgres(storageLayer, Inbox, (i, { db }) => ({
          ...i,
          claimMany: (consumer, eventIds) =>
            Effect.gen(function* () {
              const rows = yield* runQuery(db, (ex) => ex.selectFrom("inbox").select("event_id").where("consumer", "=", consumer).where("event_id", "in", [...eventIds]).execute());
              const claimed = new Set(rows.map((r) => r.event_id as string));
              yield* i.claimMany!(consumer, eventIds);
              return new Set(eventIds.filter((id) => !claimed.has(id)));
            }),
        })),
      ),
  },
  {
    rule: "idempotency: of concurrent reserves of one key exactly one wins",
    broken: "a reserve answered from a look before inserting",
    run: () =>
      raceFailures(idempotencyCases, "idempotency: of concurrent reserves of one key exactly one wins", brokenPostgres(storageLayer, IdempotencyStore, (s, { tx }) => ({ ...s, reserve: (r) => checkThenAct(tx, s.reserve(r)) }))),
  },
  {
    rule: "channel log: concurrent appends to one channel get gapless distinct offsets",
    broken: "an append answering the offset it read before appending",
    run: () =>
      raceFailures(channelLogCases, "channel log: concurrent appends to one channel get gapless distinct offsets", brokenPostgres(storageLayer, ChannelLog, (l, { tx }) => ({ ...l, append: (c, e) => checkThenAct(tx, l.append(c, e)) }))),
  },
  {
    rule: "channel log: concurrent appendMany and appends to one channel get gapless distinct offsets",
    broken: "an appendMany answering the offsets it read before appending",
    run: () =>
      raceFailures(
        channelLogCases,
        "channel log: concurrent appendMany and appends to one channel get gapless distinct offsets",
        brokenPostgres(storageLayer, ChannelLog, (l, { tx }) => ({ ...l, appendMany: (c, es) => checkThenAct(tx, l.appendMany!(c, es)) })),
      ),
  },
  {
    rule: "user epochs: concurrent bumps are never lost",
    broken: "a bump answering the epoch it read before bumping",
    run: () =>
      raceFailures(userEpochsCases, "user epochs: concurrent bumps are never lost", brokenPostgres(storageLayer, UserEpochs, (e, { tx }) => ({ ...e, bump: (u) => checkThenAct(tx, e.bump(u)) }))),
  },
];

proveRaces(t, races);
