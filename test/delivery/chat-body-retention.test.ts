/**
 * Spec, What the service does: customers' and couriers' personal data is "retained briefly";
 * masked chat (should-have) messages stay DELIVERY_CHAT_RETENTION_SECONDS after the delivery ended.
 * A chat body outlives the chat nowhere: the chat retention purge deletes the messages, and the
 * outbox (whose delivered rows the kernel keeps 7 days) never held their bodies — ChatMessageSent
 * (schema version 2) carries the message's id, sender role and time, and clients read the body
 * through GET /deliveries/:id/messages while the chat exists. Before, ChatMessageSent (version 1)
 * carried the body, which stayed in the outbox up to 7 days after a 24-hour chat retention.
 * Version-1 envelopes already written still decode (consumers and the relay read both versions).
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import { DeliveryEvent } from "../../core/delivery/Events.js";
import { listChatMessages } from "../../core/delivery/ListChatMessages.js";
import { purgeChat } from "../../core/delivery/LocationRetention.js";
import { sendChatMessage } from "../../core/delivery/SendChatMessage.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { at } from "../worker/fixtures.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user } from "./support.js";

const body = "the blue door behind the bakery, ring twice";

t.test("after the chat retention purge the outbox holds no chat body: ChatMessageSent carries none, clients read it from the chat while it exists", (t) =>
  forEachDeliveryDialect(t, "chat body retention", async (t, db) => {
    const rt = deliveryRuntime(t, db, { chatRetentionSeconds: 3600 });
    const fixture = await openRestaurant(rt, "owner-chat-body");
    const { accepted, courier } = await pickedUpOrder(rt, "customer-chat-body", fixture);
    const deliveryId = accepted.delivery.id;
    const sent = await rt.run(sendChatMessage(user("customer-chat-body"), deliveryId, { body }));

    // Relayed (delivered rows are what the kernel keeps 7 days), and routed as before.
    const seen: EventEnvelope[] = [];
    const recorder = { name: "test.chat-body", handles: (e: EventEnvelope) => e.type === "ChatMessageSent", handle: (e: EventEnvelope) => Effect.sync(() => void seen.push(e)) };
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce([recorder], { workerId: "chat-body-relay" })).claimed === 0) break;
      }),
    );
    t.equal(seen.length, 1, "the message was relayed");
    t.match(seen[0], { schema_version: 2, data: { delivery_id: deliveryId, message_id: sent.id, sender_role: "customer" } }, "the event names the message");
    t.same(deliveryChannelsFor(seen[0]!).map((c) => c.split(":")[0]), ["delivery", "courier"], "to the customer's and the courier's channels");
    t.match((await rt.run(listChatMessages(courier.principal, deliveryId))).data, [{ id: sent.id, body }], "the courier reads the body from the chat");

    await advanceDelivery(rt, courier.principal, deliveryId, { transitionId: "d", status: "delivered" });
    t.equal(await rt.run(at(Date.now() + 3601_000)(purgeChat)), 1, "the chat retention purge deleted the message");
    const outbox = (await db.db.selectFrom("outbox").select(["type", "event"]).execute()) as Array<{ type: string; event: unknown }>;
    t.ok(outbox.some((row) => row.type === "ChatMessageSent"), "the outbox still holds the delivered event");
    t.notOk(
      outbox.some((row) => (typeof row.event === "string" ? row.event : JSON.stringify(row.event)).includes("blue door")),
      "no outbox row holds the chat body",
    );
  }),
);

t.test("a ChatMessageSent of schema version 1 already in the outbox still decodes and is routed", async (t) => {
  const v1 = {
    id: "e-1",
    type: "ChatMessageSent",
    schema_version: 1,
    tenant_id: "r-1",
    aggregate_id: "d-1",
    aggregate_version: 2,
    occurred_at: "2026-11-28T08:00:00.000Z",
    actor_id: "u-1",
    data: { delivery_id: "d-1", courier_id: "c-1", message_id: "m-1", sender_role: "customer", body: "at the door", sent_at: "2026-11-28T08:00:00.000Z" },
  };
  t.match(Schema.decodeUnknownSync(DeliveryEvent)(v1), { type: "ChatMessageSent", schema_version: 1, data: { body: "at the door" } }, "version 1 decodes");
  t.same(deliveryChannelsFor(v1 as EventEnvelope), ["delivery:d-1", "courier:c-1"]);
});
