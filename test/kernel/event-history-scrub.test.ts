/**
 * Kernel maintenance applies a module's event history scrub in bounded batches until none is
 * left: more messages than one batch are all scrubbed in one run, in the outbox (delivered ones)
 * and the channel log; a scrub naming no schema version reaches every version; a run with no
 * scrub declared reports none. On SQLite and Postgres.
 */
import t from "tap";
import { Effect, Layer, TestClock, TestContext } from "effect";
import { storageLayer } from "../../adapters/sql/storageLayer.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { defaultMaintenancePolicy, runKernelMaintenance } from "../../core/maintenance/KernelMaintenance.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { forEachDialect } from "../support/databases.js";

const hour = 60 * 60_000;
const start = Date.parse("2026-11-20T08:00:00.000Z");
const count = 1_201; // more than one batch (1,000)

const event = (n: number): EventEnvelope => ({
  id: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`,
  type: "Noted",
  schema_version: 1 + (n % 2),
  tenant_id: "t",
  aggregate_id: "a",
  aggregate_version: n,
  occurred_at: new Date(start).toISOString(),
  actor_id: null,
  data: { note: `private ${n}`, secret: n, kept: n },
});

t.test("an event history scrub reaches every message past its retention, batch after batch, in one run", (t) =>
  forEachDialect(t, "event history scrub batches", async (t, db) => {
    const events = Array.from({ length: count }, (_, i) => event(i + 1));
    const program = Effect.gen(function* () {
      yield* TestClock.setTime(start);
      yield* (yield* Outbox).append(events);
      const relay = yield* OutboxRelayStore;
      for (;;) {
        const claimed = yield* relay.claimBatch({ workerId: "relay", now: new Date(start), limit: 500, leaseMs: 60_000 });
        if (claimed.length === 0) break;
        yield* Effect.forEach(claimed, (m) => relay.markDelivered(m.id), { discard: true });
      }
      const log = yield* ChannelLog;
      yield* Effect.forEach(events, (e) => log.append("notes:1", e), { discard: true });
      yield* TestClock.setTime(start + 2 * hour);
      const none = yield* runKernelMaintenance(defaultMaintenancePolicy);
      const scrubs = [{ eventType: "Noted", fields: ["note", "secret"], afterMs: hour }];
      const first = yield* runKernelMaintenance({ ...defaultMaintenancePolicy, eventScrubs: scrubs });
      const second = yield* runKernelMaintenance({ ...defaultMaintenancePolicy, eventScrubs: scrubs });
      const channel = yield* log.readSince("notes:1", 0, count + 1);
      return { none, first, second, channel };
    });
    const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(storageLayer(db), TestContext.TestContext))));
    const rows = (await db.db.selectFrom("outbox").select("event").execute()) as Array<{ event: unknown }>;
    const outbox = rows.map((row) => (typeof row.event === "string" ? JSON.parse(row.event) : row.event) as EventEnvelope);

    t.equal(result.none.scrubbed, undefined, "no scrub declared: none reported");
    t.same(result.first.scrubbed, { outboxMessages: count, channelMessages: count }, "one run scrubs them all, across batches");
    t.same(result.second.scrubbed, { outboxMessages: 0, channelMessages: 0 }, "a scrubbed message is not reached again");
    t.equal(outbox.length, count, "the outbox keeps every message");
    t.ok(outbox.every((e) => JSON.stringify(e.data) === JSON.stringify({ kept: e.aggregate_version })), "every version lost both fields and kept the rest");
    t.same(result.channel.messages.length, count, "the channel keeps every message");
    t.ok(
      result.channel.messages.every((m) => JSON.stringify(m.event.data) === JSON.stringify({ kept: m.offset })),
      "every channel message lost both fields and kept the rest",
    );
  }),
);

t.test("an event history scrub reaches dead-lettered messages only when it declares deadLettered; pending ones stay whole", (t) =>
  forEachDialect(t, "event history scrub of dead letters", async (t, db) => {
    const [dead, alsoDead, pending] = [event(1), { ...event(2), type: "Kept" }, event(3)];
    const program = Effect.gen(function* () {
      yield* TestClock.setTime(start);
      yield* (yield* Outbox).append([dead, alsoDead, pending]);
      const relay = yield* OutboxRelayStore;
      const claimed = yield* relay.claimBatch({ workerId: "relay", now: new Date(start), limit: 10, leaseMs: 60_000 });
      for (const message of claimed) {
        yield* relay.markFailed(message.id, { error: "consumer down", retryAt: message.id === pending.id ? new Date(start + 100 * hour) : null });
      }
      yield* TestClock.setTime(start + 2 * hour);
      const scrubs = [
        { eventType: "Noted", fields: ["note", "secret"], afterMs: hour, deadLettered: true },
        { eventType: "Kept", fields: ["note", "secret"], afterMs: hour },
      ];
      const first = yield* runKernelMaintenance({ ...defaultMaintenancePolicy, eventScrubs: scrubs });
      const second = yield* runKernelMaintenance({ ...defaultMaintenancePolicy, eventScrubs: scrubs });
      const replayed = yield* relay.replay(dead.id, new Date(start + 2 * hour));
      return { first, second, replayed };
    });
    const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(storageLayer(db), TestContext.TestContext))));
    const rows = (await db.db.selectFrom("outbox").select(["id", "status", "event"]).execute()) as Array<{ id: string; status: string; event: unknown }>;
    const byId = new Map(rows.map((row) => [row.id, { status: row.status, event: (typeof row.event === "string" ? JSON.parse(row.event) : row.event) as EventEnvelope }]));

    t.same(result.first.scrubbed, { outboxMessages: 1, channelMessages: 0 }, "the dead message of the scrub declaring deadLettered");
    t.same(result.second.scrubbed, { outboxMessages: 0, channelMessages: 0 }, "a scrubbed dead message is not reached again");
    t.same(byId.get(dead.id)?.event.data, { kept: 1 }, "it lost the fields and kept the rest");
    t.same(byId.get(alsoDead.id)?.event, alsoDead, "a dead message of a scrub not declaring deadLettered stays whole");
    t.same(byId.get(pending.id)?.event, pending, "a pending message stays whole");
    t.ok(result.replayed, "the scrubbed dead message can still be replayed");
    t.equal(byId.get(dead.id)?.status, "pending", "and is back in line");
  }),
);
