/**
 * GET /dispatch/deliveries/:id/messages (support): a delivery's chat for a dispatcher of the
 * region it is picked up in — while it runs and after it ended, as long as the chat retention
 * keeps the messages — oldest first, in keyset pages. Anyone else, a delivery of another region
 * or an unknown one: 404. Past the retention (an ended delivery's chat, DELIVERY_CHAT_RETENTION_SECONDS
 * after it ended) the page is empty, also before the retention pass has deleted the messages. Each read writes one row to the chat access log (spec: Authentication
 * 2, "Dispatcher or support (region-scoped operations; sensitive actions audited)").
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { ChatMessages } from "../../ports/delivery/ChatMessages.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound } from "./Access.js";
import { dispatcherRegion, inRegion } from "./ListRegionDeliveries.js";
import type { ChatMessage } from "./model/ChatMessage.js";

/** One page of the delivery's chat as support reads it; the read is audited. */
export const listSupportChatMessages = (principal: Principal, deliveryId: string, query: { readonly cursor?: string | undefined; readonly limit?: number } = {}) =>
  Effect.gen(function* () {
    const { userId, region } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("delivery")));
    const delivery = yield* (yield* DispatchRepository).findDelivery(deliveryId);
    if (delivery === null || !inRegion(delivery, region)) return yield* Effect.fail(notFound("delivery"));
    const afterId = query.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, query.cursor))[0];
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
    const chat = yield* ChatMessages;
    const id = yield* (yield* Ids).next;
    yield* (yield* Transactions).run(Effect.flatMap(now, (at) => chat.recordSupportRead({ id, deliveryId: delivery.id, viewerId: userId, at })));
    // The retention's rule, also before its pass has run: an ended delivery's chat is gone after it.
    const settings = yield* DeliverySettings;
    const ended = delivery.status === "delivered" || delivery.status === "cancelled";
    if (ended && delivery.updatedAt.getTime() < (yield* now).getTime() - settings.chatRetentionSeconds * 1000) return pageFrom<ChatMessage>([], limit, (row) => [row.id]);
    const rows = yield* chat.list({ deliveryId: delivery.id, afterId, limit: limit + 1 });
    return pageFrom(rows, limit, (row) => [row.id]) satisfies Page<ChatMessage>;
  }).pipe(withSpan("delivery.listSupportChatMessages"));
