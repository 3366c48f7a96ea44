/**
 * POST /deliveries/:id/messages (the customer or the assigned courier): relays one message of
 * the masked chat. The body (1 to 1000 characters) is redacted before it is stored or sent (no
 * digit runs, no e-mail addresses: ChatRedaction.ts); ChatMessageSent (the message's id, without
 * its body: the chat retention bounds the body, the outbox would keep it longer) goes to the
 * customer's `delivery:<id>` channel and the courier's `courier:<id>` channel. Chat is open only
 * while the delivery is assigned or picked up (else 409 chat_closed); anyone else gets 404.
 */
import type { DeliveryId } from "./model/Ids.js";
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { chatOpen, chatSeat } from "./ChatParticipant.js";
import { redactChat } from "./ChatRedaction.js";
import { ChatClosed } from "./Errors.js";
import { ChatMessageSent } from "./Events.js";
import { ChatMessageId, type ChatMessage } from "./model/ChatMessage.js";

/** The longest message a participant may send. */
export const maxChatMessageLength = 1000;

/** Sends `body` on the delivery's chat as the caller; answers the stored (redacted) message. */
export const sendChatMessage = (principal: Principal, deliveryId: DeliveryId, input: { readonly body: string }) =>
  Effect.gen(function* () {
    const body = input.body.trim();
    if (body.length < 1 || body.length > maxChatMessageLength) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "body", message: `must be 1 to ${maxChatMessageLength} characters` }] }));
    }
    const { delivery, userId, role } = yield* chatSeat(principal, deliveryId);
    if (!chatOpen(delivery) || delivery.courierId === null) {
      return yield* Effect.fail(new ChatClosed({ deliveryStatus: delivery.status, detail: `chat is closed while the delivery is ${delivery.status}` }));
    }
    const courierId = delivery.courierId;
    const message: ChatMessage = {
      id: ChatMessageId.make(yield* (yield* Ids).next),
      deliveryId: delivery.id,
      senderRole: role,
      senderId: userId,
      body: redactChat(body),
      sentAt: yield* now,
    };
    const event = yield* ChatMessageSent.make({
      tenant_id: delivery.restaurantId,
      aggregate_id: delivery.id,
      aggregate_version: delivery.version,
      actor_id: userId,
      data: { delivery_id: delivery.id, courier_id: courierId, message_id: message.id, sender_role: role, sent_at: message.sentAt.toISOString() },
    });
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* ChatMessages).insert(message);
        yield* (yield* Outbox).append([event]);
      }),
    );
    return message;
  }).pipe(withSpan("delivery.sendChatMessage"));
