/**
 * Old event versions keep nothing past the rule it falls under, dead-lettered ones too: a
 * version-1 ChatMessageSent (its body) and a version-1 CourierAssigned (`losing_courier_ids`)
 * dead-lettered in the outbox lose those fields past the same retention as delivered ones, and a
 * replay still works. Replayed, the scrubbed events decode with the module's event union: the
 * customer is still told a courier is assigned, the chat event reaches the customer's and the
 * courier's channels as the notice version 2 is (message id, sender role, time; no body, neither
 * empty nor made up: clients read the body from the chat while it exists, as the delivered-row
 * scrub leaves the channel logs), and no losing courier is named or told. SQLite and Postgres.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { v7 } from "uuid";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce, replayMessage } from "../../adapters/worker/OutboxRelay.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import { DeliveryEvent } from "../../core/delivery/Events.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { runKernelMaintenance } from "../../core/maintenance/KernelMaintenance.js";
import { hostMaintenancePolicy } from "../../hosts/Runtime.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { deliveryPushConsumer } from "../../core/delivery/PushNotifications.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, forEachDeliveryDialect, type DeliveryServices, openRestaurant, pickedUpOrder, testLocationKey } from "./support.js";

const hour = 60 * 60_000;
const body = "the blue door behind the bakery, ring twice";

const envelope = (type: string, schemaVersion: number, tenantId: string, aggregateId: string, data: Record<string, unknown>): EventEnvelope & { readonly data: Record<string, unknown> } => ({
  id: v7(),
  type,
  schema_version: schemaVersion,
  tenant_id: tenantId,
  aggregate_id: aggregateId,
  aggregate_version: 3,
  occurred_at: new Date().toISOString(),
  actor_id: null,
  data,
});

const parsed = (value: unknown): EventEnvelope => (typeof value === "string" ? JSON.parse(value) : value) as EventEnvelope;

const outboxRow = async (db: SqlDatabase, id: string) => {
  const row = (await db.db.selectFrom("outbox").select(["status", "event"]).where("id", "=", id).executeTakeFirstOrThrow()) as { status: string; event: unknown };
  return { status: row.status, event: parsed(row.event) };
};

t.test("a scrubbed version-1 ChatMessageSent and CourierAssigned decode with the module's event union", async (t) => {
  const chat = envelope("ChatMessageSent", 1, "r-1", "d-1", { delivery_id: "d-1", courier_id: "c-1", message_id: "m-1", sender_role: "customer", sent_at: "2026-11-28T08:00:00.000Z" });
  const assigned = envelope("CourierAssigned", 1, "r-1", "d-1", { delivery_id: "d-1", order_id: "o-1", courier_id: "c-1", offer_id: "f-1", version: 3 });
  const decodedChat = Schema.decodeUnknownEither(DeliveryEvent)(chat);
  t.equal(decodedChat._tag, "Right", "a version-1 chat event without its body decodes");
  if (decodedChat._tag === "Right") t.notOk("body" in decodedChat.right.data, "and carries no body (not an empty one)");
  t.equal(Schema.decodeUnknownEither(DeliveryEvent)(assigned)._tag, "Right", "a version-1 assignment without its losing couriers decodes");
  t.same(deliveryChannelsFor(assigned), ["delivery:d-1", "restaurant:r-1", "courier:c-1"], "and is routed to nobody else");
});

t.test("dead-lettered version-1 events keep no chat body and no losing couriers past the retention, and a replay still tells the customer and routes the chat notice", (t) =>
  forEachDeliveryDialect(t, "dead-lettered old event scrub", async (t, db) => {
    const settings = { chatRetentionSeconds: 3600 };
    const rt = deliveryRuntime(t, db, settings);
    const fixture = await openRestaurant(rt, "owner-dead-v1");
    const { accepted, courier } = await pickedUpOrder(rt, "customer-dead-v1", fixture);
    const deliveryId = accepted.delivery.id;
    const courierId = courier.courier.id;
    // What the flow wrote so far is delivered (to nobody: this test is about the two below).
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce<never>([], { workerId: "drain" })).claimed === 0) break;
      }),
    );

    const restaurantId = fixture.restaurant.id;
    const chatV1 = envelope("ChatMessageSent", 1, restaurantId, deliveryId, {
      delivery_id: deliveryId,
      courier_id: courierId,
      message_id: v7(),
      sender_role: "customer",
      body,
      sent_at: new Date().toISOString(),
    });
    const assignedV1 = envelope("CourierAssigned", 1, restaurantId, deliveryId, {
      delivery_id: deliveryId,
      order_id: accepted.workflow.orderId,
      courier_id: courierId,
      offer_id: null,
      version: 3,
      losing_courier_ids: ["courier-lost-1"],
    });
    // Both dead-lettered: their consumers failed to the bound.
    await rt.run(
      Effect.gen(function* () {
        yield* (yield* Outbox).append([chatV1, assignedV1]);
        const relay = yield* OutboxRelayStore;
        const claimed = yield* relay.claimBatch({ workerId: "failing", now: new Date(), limit: 10, leaseMs: 60_000 });
        for (const message of claimed) yield* relay.markFailed(message.id, { error: "consumer down", retryAt: null });
      }),
    );
    t.same([(await outboxRow(db, chatV1.id)).status, (await outboxRow(db, assignedV1.id)).status], ["dead", "dead"], "both are dead letters");

    // Kernel maintenance with the module's scrubs, as the host's worker runs it.
    const policy = hostMaintenancePolicy([makeDeliveryModule({ locationKey: testLocationKey, settings })]);
    const maintain = (millis: number) => rt.run(at(millis)(runKernelMaintenance(policy))).then((result) => result.scrubbed?.outboxMessages);
    t.equal(await maintain(Date.now()), 1, "within the chat retention only the losing couriers go");
    t.match((await outboxRow(db, chatV1.id)).event, { data: { body } }, "the dead chat event keeps its body within the chat retention");
    t.equal(await maintain(Date.now() + 2 * hour), 1, "past the chat retention the chat body goes");
    const deadChat = await outboxRow(db, chatV1.id);
    const deadAssigned = await outboxRow(db, assignedV1.id);
    t.notOk("body" in (deadChat.event.data as object), "the dead chat event holds no body");
    t.notOk("losing_courier_ids" in (deadAssigned.event.data as object), "the dead assignment names no losing courier");
    t.equal(deadChat.status, "dead", "and both stay dead letters, to be replayed");

    // Replayed by an operator: every consumer reads them again.
    const consumers: ReadonlyArray<Consumer<DeliveryServices>> = [realtimeConsumer({ channelsFor: deliveryChannelsFor }), deliveryPushConsumer];
    const relayed = await rt.run(
      Effect.gen(function* () {
        t.ok(yield* replayMessage(chatV1.id), "the chat event is replayed");
        t.ok(yield* replayMessage(assignedV1.id), "the assignment is replayed");
        return yield* relayOnce(consumers, { workerId: "after-replay" });
      }),
    );
    t.match(relayed, { claimed: 2, delivered: 2, dead: 0, retried: 0 }, "both are delivered");
    await rt.run(at(Date.now() + 60_000)(runJobsOnce(deliveryJobs, { workerId: "push-after-replay", concurrency: 1 })));
    t.same(
      rt.pushes.filter((push) => push.id === `${assignedV1.id}:customer-dead-v1`).map((push) => push.kind),
      ["courier_assigned"],
      "the customer is told a courier is assigned",
    );

    const channels = await rt.run(
      Effect.gen(function* () {
        const log = yield* ChannelLog;
        return yield* Effect.forEach([`delivery:${deliveryId}`, `courier:${courierId}`, "courier:courier-lost-1"], (channel) =>
          Effect.map(log.readSince(channel, 0, 100), (read) => read.messages.map((m) => m.event)),
        );
      }),
    );
    const [customerChannel, courierChannel, lostChannel] = channels;
    for (const [name, events] of [["customer's", customerChannel!], ["courier's", courierChannel!]] as const) {
      const notice = events.find((event) => event.id === chatV1.id);
      t.same(
        notice?.data,
        { delivery_id: deliveryId, courier_id: courierId, message_id: chatV1.data["message_id"], sender_role: "customer", sent_at: chatV1.data["sent_at"] },
        `the ${name} channel gets the chat notice without a body`,
      );
    }
    t.ok(customerChannel!.some((event) => event.id === assignedV1.id), "the customer's channel gets the assignment");
    t.same(lostChannel, [], "the losing courier is named nowhere and told nothing");
    t.notOk(
      channels.flat().some((event) => JSON.stringify(event).includes("blue door") || JSON.stringify(event).includes("courier-lost-1")),
      "no channel message holds the chat body or a losing courier",
    );
  }),
);
