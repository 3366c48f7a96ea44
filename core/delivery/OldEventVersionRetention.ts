/**
 * What version-1 delivery events carry and their successors leave out, kept no longer than the
 * rule it falls under (kernel maintenance removes it from the outbox and the channel logs):
 *   - a ChatMessageSent's body: the chat retention (DELIVERY_CHAT_RETENTION_SECONDS) after it was
 *     sent, never later than the chat itself (which goes that long after the delivery ended);
 *   - a CourierAssigned's `losing_courier_ids`: at the first maintenance run after it was
 *     delivered (each losing courier was told on their own channel; nobody else should learn who
 *     was offered the delivery).
 * Dead-lettered outbox messages are read again when replayed; the module's consumers decode them
 * without those fields (Events.ts), so each scrub declares `deadLettered`: it may reach them too.
 */
import type { EventHistoryScrub } from "../maintenance/KernelMaintenance.js";
import { ChatMessageSentV1, CourierAssignedV1 } from "./Events.js";

export const oldEventVersionScrubs = (settings: { readonly chatRetentionSeconds: number }): ReadonlyArray<EventHistoryScrub> => [
  { eventType: ChatMessageSentV1.type, schemaVersion: ChatMessageSentV1.schemaVersion, fields: ["body"], afterMs: settings.chatRetentionSeconds * 1000, deadLettered: true },
  { eventType: CourierAssignedV1.type, schemaVersion: CourierAssignedV1.schemaVersion, fields: ["losing_courier_ids"], afterMs: 0, deadLettered: true },
];
