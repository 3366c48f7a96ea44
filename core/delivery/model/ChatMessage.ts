/**
 * One masked chat message between the customer and the assigned courier of an active delivery
 * (spec: should-have). The body is stored as relayed: already redacted (ChatRedaction.ts). The
 * wire shape hides the sender's user id: each side sees only the other's role.
 */
import { ChatMessageId } from "./Ids.js";
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryId } from "./Delivery.js";

export { ChatMessageId } from "./Ids.js";

export const ChatSenderRole = Schema.Literal("customer", "courier");
export type ChatSenderRole = typeof ChatSenderRole.Type;

export const ChatMessage = Schema.Struct({
  id: ChatMessageId,
  deliveryId: DeliveryId,
  senderRole: ChatSenderRole,
  senderId: Schema.String,
  body: Schema.String,
  sentAt: Schema.DateFromSelf,
});
export type ChatMessage = typeof ChatMessage.Type;
export const ChatMessageWire = wireShape(Schema.Struct(Struct.omit(ChatMessage.fields, "senderId")));
