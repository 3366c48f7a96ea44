/** Masked chat messages of deliveries (dl_chat_messages; deleted by the retention pass). */
import { Context, type Effect } from "effect";
import type { ChatMessage } from "../../core/delivery/model/ChatMessage.js";

export interface ChatMessages {
  readonly insert: (message: ChatMessage) => Effect.Effect<void>;
  /**
   * A delivery's messages oldest first (ids are time-ordered), after `afterId`; at most `limit`;
   * with `sentSince`, only those sent at or after it; with `courierSenderId`, of the couriers'
   * messages only that sender's (a courier reads from their assignment on, nothing of a previous courier).
   */
  readonly list: (query: {
    readonly deliveryId: string;
    readonly afterId: string | null;
    readonly limit: number;
    readonly sentSince?: Date | null;
    readonly courierSenderId?: string | null;
  }) => Effect.Effect<ReadonlyArray<ChatMessage>>;
  /** Writes one append-only row of dl_chat_access_log: `viewerId` (support) read `deliveryId`'s chat at `at`. */
  readonly recordSupportRead: (read: { readonly id: string; readonly deliveryId: string; readonly viewerId: string; readonly at: Date }) => Effect.Effect<void>;
  /** Deletes the messages of deliveries that ended (delivered or cancelled) before `endedBefore`; answers how many. */
  readonly deleteEndedBefore: (endedBefore: Date) => Effect.Effect<number>;
}
export const ChatMessages = Context.GenericTag<ChatMessages>("domainkit/delivery/ChatMessages");
