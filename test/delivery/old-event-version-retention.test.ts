/**
 * Old event versions keep nothing past the rule it falls under: what a version-1 ChatMessageSent
 * (its body) and a version-1 CourierAssigned (`losing_courier_ids`) carry and their successors leave
 * out leaves the outbox and the channel logs at kernel maintenance, the chat body after the chat
 * retention, the losing couriers once delivered; the events themselves, and every other event,
 * stay for the kernel's 7-day history (channel offsets stay gapless). On SQLite and Postgres, with
 * the scrubs the delivery module's definition declares (what the host passes to maintenance).
 */
import t from "tap";
import { Effect, Layer, TestClock, TestContext } from "effect";
import { storageLayer } from "../../adapters/sql/storageLayer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { runKernelMaintenance } from "../../core/maintenance/KernelMaintenance.js";
import { hostMaintenancePolicy } from "../../hosts/Runtime.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { forEachDeliveryDialect, testLocationKey } from "./support.js";

const hour = 60 * 60_000;
const start = Date.parse("2026-11-20T08:00:00.000Z");
const body = "the blue door behind the bakery, ring twice";

const envelope = (n: number, type: string, schemaVersion: number, data: Record<string, unknown>): EventEnvelope => ({
  id: `00000000-0000-7000-8000-0000000000${String(n).padStart(2, "0")}`,
  type,
  schema_version: schemaVersion,
  tenant_id: "r-1",
  aggregate_id: "d-1",
  aggregate_version: n,
  occurred_at: new Date(start).toISOString(),
  actor_id: null,
  data,
});

const chatV1Data = { delivery_id: "d-1", courier_id: "c-1", message_id: "m-1", sender_role: "customer", body, sent_at: new Date(start).toISOString() };
const chatV1 = envelope(1, "ChatMessageSent", 1, chatV1Data);
const chatV2 = envelope(2, "ChatMessageSent", 2, { delivery_id: "d-1", courier_id: "c-1", message_id: "m-2", sender_role: "courier", sent_at: new Date(start).toISOString() });
const assignedV1 = envelope(3, "CourierAssigned", 1, { delivery_id: "d-1", order_id: "o-1", courier_id: "c-1", offer_id: "f-1", version: 3, losing_courier_ids: ["c-2", "c-3"] });
const statusChanged = envelope(4, "DeliveryStatusChanged", 2, { delivery_id: "d-1", courier_id: "c-1", from: "assigned", to: "picked_up", version: 4, transition_id: "t-1" });
// Another type with a field of the same name: not the delivery module's to scrub.
const otherBody = envelope(5, "NoteAdded", 1, { body: "kept" });
// Version 1 still pending (its delivery is retried): it is read again, so it stays whole.
const pendingChatV1 = envelope(6, "ChatMessageSent", 1, { ...chatV1Data, message_id: "m-6" });

const parsed = (value: unknown): EventEnvelope => (typeof value === "string" ? JSON.parse(value) : value) as EventEnvelope;

const dataOf = (event: EventEnvelope): Record<string, unknown> => event.data as Record<string, unknown>;

const outboxEvents = async (db: SqlDatabase): Promise<Map<string, EventEnvelope>> => {
  const rows = (await db.db.selectFrom("outbox").select(["id", "event"]).execute()) as Array<{ id: string; event: unknown }>;
  return new Map(rows.map((row) => [row.id, parsed(row.event)]));
};

t.test("old event versions keep no chat body past the chat retention and no losing couriers once delivered, in the outbox and the channel logs; other events stay", (t) =>
  forEachDeliveryDialect(t, "old event version retention", async (t, db) => {
    const module = makeDeliveryModule({ locationKey: testLocationKey, settings: { chatRetentionSeconds: 3600 } });
    // As the host's worker runs it.
    const policy = hostMaintenancePolicy([module]);
    const channels = ["delivery:d-1", "courier:c-1", "courier:c-2"];
    const program = Effect.gen(function* () {
      yield* TestClock.setTime(start);
      yield* (yield* Outbox).append([chatV1, chatV2, assignedV1, statusChanged, otherBody, pendingChatV1]);
      const relay = yield* OutboxRelayStore;
      const claimed = yield* relay.claimBatch({ workerId: "relay", now: new Date(start), limit: 10, leaseMs: 60_000 });
      for (const message of claimed) {
        yield* message.id === pendingChatV1.id
          ? relay.markFailed(message.id, { error: "consumer down", retryAt: new Date(start + 1000 * hour) })
          : relay.markDelivered(message.id);
      }
      const log = yield* ChannelLog;
      for (const event of [chatV1, chatV2, assignedV1, statusChanged]) yield* log.append("delivery:d-1", event);
      for (const event of [chatV1, chatV2, assignedV1, statusChanged]) yield* log.append("courier:c-1", event);
      yield* log.append("courier:c-2", assignedV1);
      const read = Effect.forEach(channels, (channel) => log.readSince(channel, 0, 10));

      // Within the chat retention: the chat body stays, the delivered assignment's losing couriers go.
      yield* TestClock.setTime(start + hour / 2);
      const early = yield* runKernelMaintenance(policy);
      const earlyChannels = yield* read;
      const earlyOutbox = yield* Effect.promise(() => outboxEvents(db));

      // Past the chat retention.
      yield* TestClock.setTime(start + 2 * hour);
      const late = yield* runKernelMaintenance(policy);
      const lateChannels = yield* read;
      const lateOutbox = yield* Effect.promise(() => outboxEvents(db));
      return { early, earlyChannels, earlyOutbox, late, lateChannels, lateOutbox };
    });
    const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(storageLayer(db), TestContext.TestContext))));

    t.match(result.earlyOutbox.get(chatV1.id), { data: { body } }, "within the chat retention the delivered chat body is still there");
    t.match(result.earlyChannels[0]!.messages[0], { event: { data: { body } } }, "and in the channel log");
    t.notOk("losing_courier_ids" in dataOf(result.earlyOutbox.get(assignedV1.id)!), "the delivered CourierAssigned names no losing courier");
    t.notOk(
      result.earlyChannels.some((read) => read.messages.some((m) => "losing_courier_ids" in dataOf(m.event))),
      "no channel log message names the losing couriers",
    );

    t.same(result.late.scrubbed, { outboxMessages: 1, channelMessages: 2 }, "past the chat retention: the delivered chat message and its two channel copies");
    const allLate = [...result.lateOutbox.values(), ...result.lateChannels.flatMap((read) => read.messages.map((m) => m.event))];
    t.notOk(
      allLate.some((event) => event.id !== pendingChatV1.id && JSON.stringify(event).includes("blue door")),
      "no delivered outbox row and no channel message holds the chat body",
    );
    t.same(
      result.lateOutbox.get(chatV1.id),
      { ...chatV1, data: { delivery_id: "d-1", courier_id: "c-1", message_id: "m-1", sender_role: "customer", sent_at: chatV1Data.sent_at } },
      "the version-1 event stays, with what its successor carries",
    );
    t.match(result.lateOutbox.get(pendingChatV1.id), { data: { body } }, "a pending message is delivered whole");
    t.same(result.lateOutbox.get(otherBody.id), otherBody, "another event type's field of the same name stays");
    t.same(result.lateOutbox.get(chatV2.id), chatV2, "a version-2 chat event is untouched");
    t.same(result.lateOutbox.get(statusChanged.id), statusChanged, "other delivery events are untouched");
    t.equal(result.lateOutbox.size, 6, "every event stays in the outbox for the history retention");
    t.same(
      result.lateChannels.map((read) => [read.resync, read.messages.map((m) => m.offset)]),
      [
        [false, [1, 2, 3, 4]],
        [false, [1, 2, 3, 4]],
        [false, [1]],
      ],
      "every channel message stays at its offset",
    );
    t.same(result.lateChannels[0]!.messages[3]!.event, statusChanged, "a channel's other events are untouched");
  }),
);
