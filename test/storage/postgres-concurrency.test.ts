/**
 * Races on Postgres with real parallel connections: several pools on one database, so the
 * database (row locks, SKIP LOCKED, conditional upserts, advisory locks) decides every race.
 */
import { Effect, ManagedRuntime } from "effect";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { storageLayer, type StoragePorts } from "../../adapters/sql/storageLayer.js";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { JobQueue, Jobs, type Job } from "../../ports/Jobs.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { testEvent } from "../contract/outboxKit.js";
import { createTestPostgresDatabase, kernelMigrationLabels, type TapTest } from "../support/databases.js";

const T0 = new Date("2030-01-01T00:00:00.000Z");

/** `count` separate pools on one fresh database, migrated once, each with its own runtime. */
const openPools = async (t: TapTest, count: number, migrated = true) => {
  const url = await createTestPostgresDatabase(t);
  const dbs: SqlDatabase[] = [];
  for (let i = 0; i < count; i++) dbs.push(await openPostgres({ connectionString: url, max: 4 }));
  const runtimes = dbs.map((db) => ManagedRuntime.make(storageLayer(db)));
  t.teardown(async () => {
    for (const r of runtimes) await r.dispose();
    for (const db of dbs) await db.close();
  });
  if (migrated) await migrate(dbs[0]!);
  const run = <A>(i: number, effect: Effect.Effect<A, never, StoragePorts>) => runtimes[i % count]!.runPromise(effect);
  return { dbs, run };
};

t.test("of 10 concurrent reserves of one idempotency key on separate pools exactly one wins", async (t) => {
  const { run } = await openPools(t, 5);
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      run(
        i,
        Effect.flatMap(IdempotencyStore, (s) =>
          s.reserve({
            scope: "user:1",
            key: "pay-1",
            requestHash: `h${i}`,
            now: T0,
            lockedUntil: new Date(T0.getTime() + 30_000),
            expiresAt: new Date(T0.getTime() + 86_400_000),
          }),
        ),
      ),
    ),
  );
  t.equal(results.filter((r) => r.reserved).length, 1);
  const losers = results.filter((r) => !r.reserved);
  const winnerHashes = new Set(losers.map((r) => (r.reserved ? "" : r.existing.requestHash)));
  t.equal(winnerHashes.size, 1, "every loser sees the same winner");
});

t.test("two workers on two pools claim 200 jobs and every job is claimed exactly once", async (t) => {
  const { run } = await openPools(t, 2);
  for (let i = 0; i < 200; i += 50) {
    await run(
      0,
      Effect.forEach(
        Array.from({ length: 50 }, (_, j) => i + j),
        (n) => Effect.flatMap(Jobs, (jobs) => jobs.schedule({ kind: "race", payload: { n }, runAt: T0 })),
        { concurrency: 10 },
      ),
    );
  }
  const claimedBy: Array<Array<Job>> = [[], []];
  const worker = async (w: 0 | 1) => {
    for (;;) {
      const batch = await run(
        w,
        Effect.flatMap(JobQueue, (q) => q.claimDue({ workerId: `worker-${w}`, now: T0, limit: 7, leaseMs: 600_000 })),
      );
      if (batch.length === 0) return;
      claimedBy[w]!.push(...batch);
      for (const job of batch) {
        const done = await run(w, Effect.flatMap(JobQueue, (q) => q.complete(job.id, `worker-${w}`)));
        if (!done) throw new Error(`worker-${w} lost job ${job.id}`);
      }
    }
  };
  await Promise.all([worker(0), worker(1)]);
  const ids = [...claimedBy[0]!, ...claimedBy[1]!].map((j) => j.id);
  t.equal(ids.length, 200, "200 claims in all");
  t.equal(new Set(ids).size, 200, "no job claimed twice");
  t.ok(claimedBy[0]!.length > 0 && claimedBy[1]!.length > 0, "both workers took part");
  t.ok([...claimedBy[0]!, ...claimedBy[1]!].every((j) => j.attempts === 1), "every job ran once");
});

t.test("two relays on two pools claim 200 outbox messages and every message is claimed exactly once", async (t) => {
  const { run } = await openPools(t, 2);
  const all = Array.from({ length: 200 }, (_, i) => `m${String(i).padStart(3, "0")}`);
  await run(0, Effect.flatMap(Outbox, (outbox) => outbox.append(all.map((id) => testEvent(id)))));
  // Due "now" for the claims: the appends were stamped with the real clock.
  const now = new Date(Date.now() + 60_000);
  const claimedBy: string[][] = [[], []];
  const relay = async (w: 0 | 1) => {
    for (;;) {
      const batch = await run(w, Effect.flatMap(OutboxRelayStore, (s) => s.claimBatch({ workerId: `relay-${w}`, now, limit: 7, leaseMs: 600_000 })));
      if (batch.length === 0) return;
      claimedBy[w]!.push(...batch.map((m) => m.id));
    }
  };
  await Promise.all([relay(0), relay(1), relay(0), relay(1)]);
  const ids = [...claimedBy[0]!, ...claimedBy[1]!];
  t.equal(ids.length, 200, "200 claims in all");
  t.equal(new Set(ids).size, 200, "no message claimed twice");
  t.ok(claimedBy[0]!.length > 0 && claimedBy[1]!.length > 0, "both relays took part");
});

t.test("20 concurrent appends to one channel on separate pools get offsets 1..20 without gaps", async (t) => {
  const { run } = await openPools(t, 4);
  const messages = await Promise.all(
    Array.from({ length: 20 }, (_, i) => run(i, Effect.flatMap(ChannelLog, (log) => log.append("project:p1", testEvent(`e${i}`))))),
  );
  t.same(
    messages.map((m) => m.offset).sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  const read = await run(0, Effect.flatMap(ChannelLog, (log) => log.readSince("project:p1", 0, 100)));
  t.same(read.messages.map((m) => m.event.id), [...messages].sort((a, b) => a.offset - b.offset).map((m) => m.event.id));
});

t.test("migrations run concurrently from two pools are applied once without error", async (t) => {
  const { dbs } = await openPools(t, 2, false);
  const [a, b] = await Promise.all([migrate(dbs[0]!), migrate(dbs[1]!)]);
  const applied = [...a.applied, ...b.applied];
  t.same(applied.filter((l) => l.startsWith("kernel/")).sort(), kernelMigrationLabels, "each kernel migration applied exactly once");
  t.equal(new Set(applied).size, applied.length, "nothing applied twice");
  const rows = await dbs[0]!.db.selectFrom("domainkit_migrations").selectAll().where("module", "=", "kernel").execute();
  t.equal(rows.length, kernelMigrationLabels.length);
});
