/**
 * The dispatch console (dispatchers, region-scoped): list the unfinished deliveries of the
 * caller's region (no customer, no drop-off), read one with its drop-off (audited), read a
 * delivery's chat (audited), and reassign one to another courier with a reason (Idempotency-Key required,
 * like every operator action; a recent sign-in required: step-up).
 */
import { Effect, Schema } from "effect";
import { listRegionDeliveries } from "../../../core/delivery/ListRegionDeliveries.js";
import { reassignAsDispatcher } from "../../../core/delivery/ReassignAsDispatcher.js";
import { listSupportChatMessages } from "../../../core/delivery/ListSupportChatMessages.js";
import { ChatMessageWire } from "../../../core/delivery/model/ChatMessage.js";
import { readRegionDelivery } from "../../../core/delivery/ReadRegionDelivery.js";
import type { Delivery } from "../../../core/delivery/model/Delivery.js";
import { DeliveryWire, DispatchListDeliveryWire, type DispatchListDelivery } from "../../../core/delivery/model/Views.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { DeliveryParams } from "./RestaurantSchemas.js";

const tags = ["delivery"];

/** Body of POST /deliveries/:id/reassign. */
export const ReassignBody = Schema.Struct({ courier_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)), reason: Schema.String });

/** A delivery as the console lists it: without the customer and the drop-off (those are read one at a time, audited). */
const withoutCustomer = ({ customerId: _c, dropoffLat: _la, dropoffLng: _ln, dropoffAddress: _a, ...listed }: Delivery): DispatchListDelivery => listed;

/** GET /dispatch/deliveries — the region's pending, assigned and picked-up deliveries. */
const listRoute = defineRoute({
  method: "GET",
  path: "/dispatch/deliveries",
  operationId: "listRegionDeliveries",
  summary: "List the unfinished deliveries of the dispatcher's region (keyset pages)",
  description:
    "Dispatchers only (DELIVERY_DISPATCHERS): deliveries picked up inside the caller's region, by id, without the customer and the drop-off (read one delivery for those; that read is audited). Anyone else: 403.",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(DispatchListDeliveryWire) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listRegionDeliveries(principal, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((deliveries) => ({
        status: 200,
        body: { ...deliveries, data: deliveries.data.map(withoutCustomer) },
      })),
    ),
});

/** GET /dispatch/deliveries/:id — one delivery of the region with its customer and drop-off (audited). */
const readRoute = defineRoute({
  method: "GET",
  path: "/dispatch/deliveries/:id",
  operationId: "readRegionDelivery",
  summary: "Read one unfinished delivery of the dispatcher's region, drop-off included (audited)",
  description:
    "A dispatcher of the region the delivery is picked up in, while it is pending, assigned or picked up; anyone else, or a delivery outside the region or finished, answers 404. Each read writes one row to the location access log.",
  tags,
  auth: "required",
  answersEtag: "version",
  params: DeliveryParams,
  responses: { 200: DeliveryWire },
  problems: [404],
  handler: ({ principal, params }) =>
    readRegionDelivery(principal, params.id).pipe(
      Effect.map((delivery) => ({ status: 200, body: delivery, etag: delivery.version, headers: { "Cache-Control": "no-store" } })),
    ),
});

/** GET /dispatch/deliveries/:id/messages — support reads the delivery's chat (audited). */
const chatRoute = defineRoute({
  method: "GET",
  path: "/dispatch/deliveries/:id/messages",
  operationId: "listSupportChatMessages",
  summary: "Read a delivery's chat as support (a dispatcher of its region; audited)",
  description:
    "A dispatcher of the region the delivery is picked up in, while it runs and after it ended, until DELIVERY_CHAT_RETENTION_SECONDS after it ended (then an empty page); anyone else, or a delivery outside the region, answers 404. Oldest first, keyset pages. Each read writes one row (dispatcher, delivery, time) to the chat access log.",
  tags,
  auth: "required",
  pagination: true,
  params: DeliveryParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(ChatMessageWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) =>
    listSupportChatMessages(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((messages) => ({ status: 200, body: messages, headers: { "Cache-Control": "no-store" } })),
    ),
});

/** POST /deliveries/:id/reassign — manual reassignment with a reason (audited). */
const reassignRoute = defineRoute({
  method: "POST",
  path: "/deliveries/:id/reassign",
  operationId: "reassignDelivery",
  summary: "Reassign a pending or assigned delivery to another courier, with a reason",
  description:
    "A dispatcher of the region the delivery is picked up in (else 404), whose token's auth_time is within DELIVERY_STEP_UP_SECONDS (else 403 step_up_required); Idempotency-Key required. Answers the delivery without its customer and drop-off (read those with GET /dispatch/deliveries/:id, audited). Actor and reason are kept in the delivery's status history; the previous courier and open offers are told through CourierAssigned. A picked-up delivery answers 409 delivery_not_reassignable; a courier who already has another active delivery 409 courier_busy.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: DeliveryParams,
  body: ReassignBody,
  // The list's shape: no customer, no drop-off. The answer is stored under the Idempotency-Key and
  // replayed, so showing them here would bypass the audited read (GET /dispatch/deliveries/:id).
  responses: { 200: DispatchListDeliveryWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    reassignAsDispatcher(principal, params.id, { courierId: body.courier_id, reason: body.reason }).pipe(
      Effect.map((delivery) => ({ status: 200, body: withoutCustomer(delivery), etag: delivery.version })),
    ),
});

/** Every dispatch console route. */
export const dispatchRoutes = [listRoute, readRoute, chatRoute, reassignRoute];
