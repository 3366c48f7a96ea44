/**
 * Masked customer–courier chat (spec: should-have): messages are relayed through the server only
 * between the customer and the assigned courier of an active delivery (anyone else 404; before
 * assignment and after completion the chat is closed), phone numbers and e-mail addresses are
 * redacted before anything is stored or pushed, each message is pushed on `delivery:<id>` and
 * `courier:<id>`, and the retention pass deletes the messages of ended deliveries — SQLite and
 * Postgres.
 */
import { Effect } from "effect";
import t from "tap";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import { redactChat, redactedEmail, redactedNumber } from "../../core/delivery/ChatRedaction.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { listChatMessages } from "../../core/delivery/ListChatMessages.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import { ChatMessageId, type ChatMessage } from "../../core/delivery/model/ChatMessage.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { Ids } from "../../ports/Ids.js";
import { purgeChat } from "../../core/delivery/LocationRetention.js";
import { sendChatMessage } from "../../core/delivery/SendChatMessage.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { at } from "../worker/fixtures.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, pickedUpOrder, user, advanceDelivery } from "./support.js";

t.test("the relay redacts phone numbers and e-mail addresses and keeps short numbers", async (t) => {
  t.equal(redactChat("call me on +49 170 1234567"), `call me on ${redactedNumber}`);
  t.equal(redactChat("(030) 123-45-67 please"), `${redactedNumber} please`);
  t.equal(redactChat("0170.123.4567"), redactedNumber);
  t.equal(redactChat("mail jane.doe@example.org"), `mail ${redactedEmail}`);
  t.equal(redactChat("door 3, 4th floor, 2 min"), "door 3, 4th floor, 2 min", "short numbers stay");
  t.equal(redactChat("code 12345"), `code ${redactedNumber}`, "five digits are a number");
});

t.test("only the customer and the assigned courier chat, while the delivery is active; messages are masked, pushed to both and deleted after retention", (t) =>
  forEachDeliveryDialect(t, "chat", async (t, db) => {
    const rt = deliveryRuntime(t, db, { chatRetentionSeconds: 3600 });
    const fixture = await openRestaurant(rt, "owner-chat");

    // Before a courier is assigned there is nobody to talk to.
    const waiting = await acceptedOrder(rt, "customer-wait", fixture);
    t.match(await rt.attempt(sendChatMessage(user("customer-wait"), waiting.accepted.delivery.id, { body: "hello" })), { ok: false, error: { code: "chat_closed" } });

    const { accepted, courier } = await pickedUpOrder(rt, "customer-chat", fixture);
    const deliveryId = accepted.delivery.id;
    const fromCustomer = await rt.run(sendChatMessage(user("customer-chat"), deliveryId, { body: "Ring twice or call +49 170 1234567 / me@home.example" }));
    t.equal(fromCustomer.body, `Ring twice or call ${redactedNumber} / ${redactedEmail}`, "stored masked");
    t.equal(fromCustomer.senderRole, "customer");
    const fromCourier = await rt.run(sendChatMessage(courier.principal, deliveryId, { body: "At the door in 2 min" }));
    t.equal(fromCourier.senderRole, "courier");
    t.match(await rt.attempt(sendChatMessage(user("customer-chat"), deliveryId, { body: "   " })), { ok: false, error: { code: "validation_failed" } });

    for (const reader of [user("customer-chat"), courier.principal]) {
      const page = await rt.run(listChatMessages(reader, deliveryId));
      t.same(page.data.map((m) => m.body), [fromCustomer.body, fromCourier.body], "both sides read the masked conversation");
    }
    const [stranger] = await onlineCouriers(rt, 1, "stranger");
    for (const outsider of [user("customer-wait"), user("owner-chat"), stranger!.principal]) {
      t.match(await rt.attempt(listChatMessages(outsider, deliveryId)), { ok: false, error: { code: "not_found" } }, "anyone else: 404");
      t.match(await rt.attempt(sendChatMessage(outsider, deliveryId, { body: "hi" })), { ok: false, error: { code: "not_found" } });
    }

    // Each message is pushed to the customer's delivery channel and the courier's channel, masked.
    const seen: EventEnvelope[] = [];
    const recorder = { name: "test.chat", handles: (e: EventEnvelope) => e.type === "ChatMessageSent", handle: (e: EventEnvelope) => Effect.sync(() => void seen.push(e)) };
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce([recorder], { workerId: "chat-relay" })).claimed === 0) break;
      }),
    );
    t.equal(seen.length, 2);
    for (const event of seen) {
      t.same(deliveryChannelsFor(event).map((c) => c.split(":")[0]), ["delivery", "courier"]);
      t.equal(deliveryChannelsFor(event)[0], `delivery:${deliveryId}`);
      t.notOk(JSON.stringify(event).includes("1234567"), "no phone number in the pushed event");
    }

    // Completion closes the chat; the messages stay for support until the retention pass.
    await advanceDelivery(rt, courier.principal, deliveryId, { transitionId: "d", status: "delivered" });
    t.match(await rt.attempt(sendChatMessage(user("customer-chat"), deliveryId, { body: "thanks" })), { ok: false, error: { code: "chat_closed" } });
    t.match(await rt.attempt(listChatMessages(user("customer-chat"), deliveryId)), { ok: false, error: { code: "not_found" } }, "closed chat: 404");
    t.equal(await rt.run(purgeChat), 0, "kept within the retention");
    t.equal(await rt.run(at(Date.now() + 3601_000)(purgeChat)), 2, "deleted once the retention has passed");
  }),
);

/*
 * Spec, masked chat: messages are relayed "between the customer and the assigned courier". After a
 * reassignment the new courier reads only the conversation since their own assignment, never what
 * the customer and the previous courier exchanged (as tracking shows only positions since it).
 */
t.test("a reassigned delivery's new courier reads only the messages sent since their assignment, never those with the previous courier", (t) =>
  forEachDeliveryDialect(t, "chat since assignment", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt, "owner-reassign");
    const [first, second] = await onlineCouriers(rt, 2, "reassign");
    const { accepted } = await acceptedOrder(rt, "customer-reassign", fixture);
    const deliveryId = accepted.delivery.id;
    await rt.run(acceptOffer(first!.principal, (await rt.run(listMyOffers(first!.principal)))[0]!.id));
    const start = Date.now();
    const before = [
      await rt.run(at(start + 10)(sendChatMessage(user("customer-reassign"), deliveryId, { body: "the gate code is 4711" }))),
      await rt.run(at(start + 20)(sendChatMessage(first!.principal, deliveryId, { body: "noted, see you soon" }))),
    ];
    await rt.run(at(start + 30)(reassignDelivery({ actorId: "dispatcher-1", deliveryId, courierId: second!.courier.id, reason: "courier 1 has a flat tyre" })));
    t.match(await rt.attempt(at(start + 40)(listChatMessages(first!.principal, deliveryId))), { ok: false, error: { code: "not_found" } }, "the previous courier no longer reads the chat");
    t.same((await rt.run(at(start + 40)(listChatMessages(second!.principal, deliveryId)))).data, [], "nothing from before the reassignment");
    // A message the previous courier got in while the reassignment committed (sent on the seat it
    // read before), stamped after the reassignment: still not the new courier's to read.
    const late: ChatMessage = { id: ChatMessageId.make(await rt.run(Effect.flatMap(Ids, (ids) => ids.next))), deliveryId, senderRole: "courier", senderId: first!.principal.kind === "user" ? first!.principal.userId : "", body: "leaving it at the door", sentAt: new Date(start + 45) };
    await rt.run(Effect.flatMap(ChatMessages, (messages) => messages.insert(late)));
    const after = [
      await rt.run(at(start + 50)(sendChatMessage(second!.principal, deliveryId, { body: "I took over your order" }))),
      await rt.run(at(start + 60)(sendChatMessage(user("customer-reassign"), deliveryId, { body: "thanks" }))),
    ];
    const courierPage = await rt.run(at(start + 70)(listChatMessages(second!.principal, deliveryId, { limit: 1 })));
    t.same(courierPage.data.map((m) => m.body), [after[0]!.body], "the first page starts at the assignment");
    t.ok(courierPage.next_cursor, "a next page");
    const rest = await rt.run(at(start + 70)(listChatMessages(second!.principal, deliveryId, { cursor: courierPage.next_cursor!, limit: 10 })));
    t.same(rest.data.map((m) => m.body), [after[1]!.body]);
    t.same(
      (await rt.run(at(start + 70)(listChatMessages(user("customer-reassign"), deliveryId)))).data.map((m) => m.body).sort(),
      [...before, late, ...after].map((m) => m.body).sort(),
      "the customer still reads the whole conversation",
    );
  }),
);
