/**
 * Kernel retention: expired idempotency records are purged, realtime messages past the window
 * are trimmed (each channel keeps its newest), and every run schedules exactly one job for the
 * next slot however many processes ask — on SQLite and Postgres.
 */
import t from "tap";
import { Effect, Layer, TestClock, TestContext } from "effect";
import { storageLayer } from "../../adapters/sql/storageLayer.js";
import {
  kernelMaintenanceKind,
  runKernelMaintenance,
  scheduleNextMaintenance,
} from "../../core/maintenance/KernelMaintenance.js";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { JobQueue } from "../../ports/Jobs.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { forEachDialect } from "../support/databases.js";

const hour = 60 * 60_000;
const policy = { intervalMs: hour, channelRetentionMs: 2 * hour };
const start = Date.parse("2026-01-01T00:00:00.000Z");
const event = (n: number) => ({
  id: `00000000-0000-7000-8000-00000000000${n}`,
  type: "Test",
  schema_version: 1,
  tenant_id: "t",
  aggregate_id: "a",
  aggregate_version: n,
  occurred_at: new Date(start).toISOString(),
  actor_id: null,
  data: {},
});

t.test("maintenance purges expired keys, trims old messages and schedules one next run", (t) =>
  forEachDialect(t, "kernel maintenance", async (t, db) => {
    const program = Effect.gen(function* () {
      yield* TestClock.setTime(start);
      const store = yield* IdempotencyStore;
      const log = yield* ChannelLog;
      yield* store.reserve({ scope: "s", key: "old", requestHash: "h", now: new Date(start), lockedUntil: new Date(start), expiresAt: new Date(start + hour) });
      yield* store.reserve({ scope: "s", key: "kept", requestHash: "h", now: new Date(start), lockedUntil: new Date(start), expiresAt: new Date(start + 48 * hour) });
      yield* log.append("c:1", event(1));
      yield* log.append("c:1", event(2));
      yield* TestClock.setTime(start + 3 * hour);
      yield* log.append("c:1", event(3));
      const removed = yield* runKernelMaintenance(policy);
      // Any number of processes scheduling the same slot at start-up: still one job.
      yield* scheduleNextMaintenance(start + 3 * hour, policy);
      yield* scheduleNextMaintenance(start + 3 * hour, policy);
      const kept = yield* log.readSince("c:1", 2, 10);
      const queue = yield* JobQueue;
      const due = yield* queue.claimDue({ workerId: "w", now: new Date(start + 10 * hour), limit: 10, leaseMs: 1000 });
      return { removed, kept, due };
    });
    const result = await Effect.runPromise(
      program.pipe(Effect.provide(Layer.merge(storageLayer(db), TestContext.TestContext))),
    );
    t.same(result.removed, { idempotencyRecords: 1, channelMessages: 2 });
    t.same(result.kept.messages.map((m) => m.offset), [3], "the newest message survives");
    t.same(
      result.due.map((j) => [j.kind, j.key, j.runAt.toISOString()]),
      [[kernelMaintenanceKind, `slot-${(start + 4 * hour) / hour}`, new Date(start + 4 * hour).toISOString()]],
      "exactly one job, for the next slot",
    );
  }),
);
