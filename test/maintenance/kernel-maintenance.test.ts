/**
 * Kernel retention: expired idempotency records are purged, realtime messages past the window
 * are trimmed (each channel keeps its newest), the history past its retention goes (delivered
 * outbox messages, inbox records of events no longer held for delivery, finished jobs) while
 * everything still to be delivered, replayed or run stays, and every run schedules exactly one
 * job for the next slot however many processes ask — on SQLite and Postgres.
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
import { Inbox } from "../../ports/Inbox.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { forEachDialect } from "../support/databases.js";

const hour = 60 * 60_000;
const policy = { intervalMs: hour, channelRetentionMs: 2 * hour, historyRetentionMs: 2 * hour };
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
      // History: event 4 delivered, event 5 still pending; the consumer handled both, and an
      // event that never was in the outbox.
      yield* (yield* Outbox).append([event(4), event(5)]);
      const relay = yield* OutboxRelayStore;
      const [first] = yield* relay.claimBatch({ workerId: "relay", now: new Date(start), limit: 1, leaseMs: 60_000 });
      yield* relay.markDelivered(first!.id);
      const inbox = yield* Inbox;
      for (const id of [event(4).id, event(5).id, "external-1"]) yield* inbox.claim("consumer", id);
      // Jobs: one done, one cancelled, one dead, one not due yet.
      const jobs = yield* Jobs;
      const worker = yield* JobQueue;
      yield* jobs.schedule({ kind: "history", key: "done", payload: {}, runAt: new Date(start) });
      yield* jobs.schedule({ kind: "history", key: "cancelled", payload: {}, runAt: new Date(start) });
      yield* jobs.schedule({ kind: "history", key: "dead", payload: {}, runAt: new Date(start) });
      yield* jobs.schedule({ kind: "history", key: "later", payload: {}, runAt: new Date(start + 100 * hour) });
      yield* jobs.cancel("history", "cancelled");
      for (const job of yield* worker.claimDue({ workerId: "w", now: new Date(start), limit: 10, leaseMs: 1000, kinds: ["history"] })) {
        yield* job.key === "done" ? worker.complete(job.id, "w") : worker.fail(job.id, "w", { error: "boom", retryAt: null });
      }
      yield* TestClock.setTime(start + 3 * hour);
      yield* log.append("c:1", event(3));
      const removed = yield* runKernelMaintenance(policy);
      // Any number of processes scheduling the same slot at start-up: still one job.
      yield* scheduleNextMaintenance(start + 3 * hour, policy);
      yield* scheduleNextMaintenance(start + 3 * hour, policy);
      const kept = yield* log.readSince("c:1", 2, 10);
      const queue = yield* JobQueue;
      const due = yield* queue.claimDue({ workerId: "w", now: new Date(start + 10 * hour), limit: 10, leaseMs: 1000, kinds: [kernelMaintenanceKind] });
      const pending = yield* relay.claimBatch({ workerId: "relay", now: new Date(start + 10 * hour), limit: 10, leaseMs: 60_000 });
      // Still deduped: the pending event's record stays; the purged ones could be claimed again.
      const again = yield* Effect.forEach([event(5).id, "external-1"], (id) => inbox.claim("consumer", id));
      const dead = yield* queue.listDead(10, ["history"]);
      return { removed, kept, due, pending: pending.map((m) => m.id), again, dead: dead.map((j) => j.key) };
    });
    const result = await Effect.runPromise(
      program.pipe(Effect.provide(Layer.merge(storageLayer(db), TestContext.TestContext))),
    );
    t.same(result.removed, { idempotencyRecords: 1, channelMessages: 2, deliveredMessages: 1, inboxRecords: 2, finishedJobs: 2 });
    t.same(result.pending, [event(5).id], "the pending event stays in the outbox");
    t.same(result.again, [false, true], "its inbox record stays; an event no longer held for delivery lost its record");
    t.same(result.dead, ["dead"], "dead jobs stay for the operator");
    t.same(result.kept.messages.map((m) => m.offset), [3], "the newest message survives");
    t.same(
      result.due.map((j) => [j.kind, j.key, j.runAt.toISOString()]),
      [[kernelMaintenanceKind, `slot-${(start + 4 * hour) / hour}`, new Date(start + 4 * hour).toISOString()]],
      "exactly one job, for the next slot",
    );
  }),
);
