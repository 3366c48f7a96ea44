/**
 * GET /deliveries/:id/messages (the customer or the assigned courier): the delivery's chat,
 * oldest first, in keyset pages — only while the chat is open (assigned or picked up); before
 * and after, like for anyone else, 404 (the messages stay for support until the retention pass
 * deletes them). The customer reads the whole conversation; the courier only the messages sent
 * since their own assignment and no other courier's (after a reassignment, nothing exchanged with
 * the previous courier), as tracking shows only positions since it.
 */
import type { DeliveryId } from "./model/Ids.js";
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import type { Principal } from "../../ports/Principal.js";
import { notFound } from "./Access.js";
import { chatOpen, chatSeat } from "./ChatParticipant.js";
import { currentAssignmentAt } from "./Tracking.js";
import type { ChatMessage } from "./model/ChatMessage.js";

/** One page of the delivery's chat. */
export const listChatMessages = (principal: Principal, deliveryId: DeliveryId, query: { readonly cursor?: string | undefined; readonly limit?: number } = {}) =>
  Effect.gen(function* () {
    const { delivery, role, userId } = yield* chatSeat(principal, deliveryId);
    if (!chatOpen(delivery)) return yield* Effect.fail(notFound("delivery"));
    // A courier: from their assignment on, and of the couriers' messages only their own (one the
    // previous courier sent while the reassignment committed is stamped after it).
    const sentSince = role === "courier" ? yield* currentAssignmentAt(delivery) : null;
    const courierSenderId = role === "courier" ? userId : null;
    const afterId = query.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, query.cursor))[0];
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
    const rows = yield* (yield* ChatMessages).list({ deliveryId: delivery.id, afterId, limit: limit + 1, sentSince, courierSenderId });
    return pageFrom(rows, limit, (row) => [row.id]) satisfies Page<ChatMessage>;
  }).pipe(withSpan("delivery.listChatMessages"));
