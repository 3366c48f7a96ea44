/**
 * Masked customer–courier chat (spec: should-have): messages relayed through the server on the
 * delivery, redacted (no digit runs, no e-mail addresses), open while the delivery is assigned
 * or picked up; pushed on `delivery:<id>` (the customer) and `courier:<id>` (the courier).
 */
import { Effect, Schema } from "effect";
import { listChatMessages } from "../../../core/delivery/ListChatMessages.js";
import { ChatMessageWire } from "../../../core/delivery/model/ChatMessage.js";
import { sendChatMessage } from "../../../core/delivery/SendChatMessage.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { DeliveryParams } from "./RestaurantSchemas.js";

const tags = ["delivery"];

/** Body of POST /deliveries/:id/messages. */
export const ChatMessageBody = Schema.Struct({ body: Schema.String.pipe(Schema.maxLength(4000)) });

/** POST /deliveries/:id/messages — send one message to the other side of the delivery. */
const sendRoute = defineRoute({
  method: "POST",
  path: "/deliveries/:id/messages",
  operationId: "sendDeliveryChatMessage",
  summary: "Send a chat message to the courier (as the customer) or to the customer (as the assigned courier)",
  description:
    "The body (1 to 1000 characters) is redacted before it is stored or relayed: runs of 5 or more digits (phone numbers) and e-mail addresses are replaced. Open while the delivery is assigned or picked up, else 409 chat_closed; anyone but the customer and the assigned courier: 404. Pushed as ChatMessageSent (schema version 2: the message id, sender role and time, never the body; read it here with GET) on delivery:<id> and courier:<id>.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: DeliveryParams,
  body: ChatMessageBody,
  responses: { 201: ChatMessageWire },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    sendChatMessage(principal, params.id, { body: body.body }).pipe(Effect.map((message) => ({ status: 201, body: message, headers: { "Cache-Control": "no-store" } }))),
});

/** GET /deliveries/:id/messages — the delivery's chat, oldest first. */
const listRoute = defineRoute({
  method: "GET",
  path: "/deliveries/:id/messages",
  operationId: "listDeliveryChatMessages",
  summary: "Read the delivery's chat (the customer and the assigned courier, while the delivery is active)",
  description: "Oldest first, keyset pages. Before assignment, after delivery or cancellation, and for anyone else: 404.",
  tags,
  auth: "required",
  pagination: true,
  params: DeliveryParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(ChatMessageWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) =>
    listChatMessages(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((messages) => ({ status: 200, body: messages, headers: { "Cache-Control": "no-store" } })),
    ),
});

/** Every chat route. */
export const chatRoutes = [sendRoute, listRoute];
