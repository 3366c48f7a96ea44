/**
 * The customer's endpoints: quote, place (Idempotency-Key required: it authorizes a payment),
 * read the order with its delivery, and track the active delivery.
 */
import { Effect, Schema } from "effect";
import { getOrder } from "../../../core/delivery/GetOrder.js";
import { placeOrder } from "../../../core/delivery/PlaceOrder.js";
import { quoteOrder } from "../../../core/delivery/QuoteOrder.js";
import { orderDropoff, quoteDropoff, type StoredDropoff } from "../../../core/delivery/StoredDropoff.js";
import { trackDelivery } from "../../../core/delivery/Tracking.js";
import { QuoteWire } from "../../../core/delivery/model/Quote.js";
import { CustomerOrderWire, TrackingWire, customerOrderView } from "../../../core/delivery/model/Views.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { PlaceOrderBody, QuoteBody } from "./OrderSchemas.js";
import { DeliveryParams, OrderParams } from "./RestaurantSchemas.js";
import { listMyOrderRefunds } from "../../../core/delivery/ListMyOrderRefunds.js";
import { CustomerRefundWire } from "../../../core/delivery/model/Refund.js";

const tags = ["delivery"];
// The customer's own order and position data: nobody may cache them.
const privateAnswer = { "Cache-Control": "no-store" };

// The customer's drop-off is retained briefly (spec, What the service does): the stored answer
// of a quote or an order keeps none, and a replay shows the drop-off as stored now — redacted
// (3 decimals, address masked) once the location retention pass has passed it.
const dropoffFields = ["dropoff_address", "dropoff_lat", "dropoff_lng"];
const dropoffWire = (dropoff: StoredDropoff) => ({ dropoff_address: dropoff.dropoffAddress, dropoff_lat: dropoff.dropoffLat, dropoff_lng: dropoff.dropoffLng });

/** POST /orders/quote — an expiring, server-calculated quote. */
const quoteRoute = defineRoute({
  method: "POST",
  path: "/orders/quote",
  operationId: "quoteDeliveryOrder",
  summary: "Quote an order: expiring, calculated by the server",
  description:
    "total_minor = subtotal_minor + delivery_fee_minor + service_fee_minor + tax_minor (prices exclude tax). 409 menu_changed with a resolvable diff when menu_version is not current or an item is unavailable; 422 for a closed restaurant, a drop-off outside the service zone or invalid lines. A scheduled order names its delivery slot in scheduled_for (a quarter hour, 30 minutes to 7 days ahead, else 422); the restaurant accepts it as usual and dispatch starts 20 minutes before the slot. With an Idempotency-Key the stored answer keeps no drop-off: a replay shows the quote's drop-off as stored now (to 3 decimals, address [REDACTED], once the quote finished longer than the location retention).",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  unstored: { fields: dropoffFields, reissue: ({ principal }, stored) => quoteDropoff(principal, String(stored["id"])).pipe(Effect.map(dropoffWire)) },
  body: QuoteBody,
  responses: { 200: QuoteWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, body }) =>
    quoteOrder(principal, {
      restaurantId: body.restaurant_id,
      menuVersion: body.menu_version,
      lines: body.lines.map((line) => ({ itemId: line.item_id, quantity: line.quantity, modifierIds: line.modifier_ids ?? [] })),
      dropoff: body.dropoff,
      scheduledFor: body.scheduled_for ?? null,
    }).pipe(Effect.map((quote) => ({ status: 200, body: quote, headers: privateAnswer }))),
});

/** POST /orders — authorize the payment, then place the order (201), or 202 while the provider's answer is unknown. */
const placeOrderRoute = defineRoute({
  method: "POST",
  path: "/orders",
  operationId: "placeDeliveryOrder",
  summary: "Authorize the payment and place the order",
  description:
    "Idempotency-Key required. 201 authorized; 202 payment_pending when the provider's answer is not known yet (resolved by a lookup job); 402 payment_declined; 409 quote_expired, menu_changed with its diff, or quote_payment_method_differs (the quote is being placed with another payment method). One order per quote. The stored answer keeps no drop-off: a replay shows the order's drop-off as stored now (to 3 decimals, address [REDACTED], once the order finished longer than the location retention).",
  tags,
  budget: { name: "delivery_orders" },
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  unstored: { fields: dropoffFields, reissue: ({ principal }, stored) => orderDropoff(principal, String(stored["id"])).pipe(Effect.map(dropoffWire)) },
  body: PlaceOrderBody,
  responses: { 201: CustomerOrderWire, 202: CustomerOrderWire },
  problems: [402, 403, 404, 409, 422],
  handler: ({ principal, body }) =>
    placeOrder(principal, { quoteId: body.quote_id, paymentMethod: body.payment_method }).pipe(
      Effect.map((placed) => ({
        status: placed.workflow.status === "payment_pending" ? 202 : 201,
        body: customerOrderView(placed),
        etag: placed.workflow.version,
        headers: privateAnswer,
      })),
    ),
});

/** GET /orders/:id — the customer's order with `delivery: {id, status, courier_id, version}`. */
const getOrderRoute = defineRoute({
  method: "GET",
  path: "/orders/:id",
  operationId: "getDeliveryOrder",
  summary: "Read the caller's order and its delivery",
  description:
    "The caller's order (another customer's: 404). Once the order finished (its delivery delivered or cancelled, or the order rejected or cancelled without one) longer than DELIVERY_LOCATION_RETENTION_SECONDS ago, its drop-off shows to 3 decimals (about 100 m) with dropoff_address \"[REDACTED]\".",
  tags,
  auth: "required",
  answersEtag: "version",
  params: OrderParams,
  responses: { 200: CustomerOrderWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getOrder(principal, params.id).pipe(
      Effect.map((order) => ({ status: 200, body: customerOrderView(order), etag: order.workflow.version, headers: privateAnswer })),
    ),
});

/** GET /deliveries/:id/tracking — the customer's view of the active delivery (audited). */
const trackingRoute = defineRoute({
  method: "GET",
  path: "/deliveries/:id/tracking",
  operationId: "trackDelivery",
  summary: "Track the caller's active delivery (courier position, status, version)",
  description:
    "The customer of the delivery, only while it is assigned or picked up; otherwise 404 (also before assignment and after completion). The courier's newest position recorded since the courier was assigned to this delivery, of the last five minutes (none from before the assignment); each access is audited.",
  tags,
  auth: "required",
  answersEtag: "version",
  params: DeliveryParams,
  responses: { 200: TrackingWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    trackDelivery(principal, params.id).pipe(Effect.map((tracking) => ({ status: 200, body: tracking, etag: tracking.version, headers: privateAnswer }))),
});

/** Every customer order route. */
/** GET /orders/:id/refunds — the refunds of the caller's order (amount and outcome). */
const myRefundsRoute = defineRoute({
  method: "GET",
  path: "/orders/:id/refunds",
  operationId: "listMyDeliveryOrderRefunds",
  summary: "List the refunds of the caller's order",
  description:
    "The caller's order (another customer's: 404). Oldest first (by id), in keyset pages: amount, currency and status (pending, refunded, failed) with when it was asked for and settled; support's actor and reason are not shown.",
  tags,
  auth: "required",
  pagination: true,
  params: OrderParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(CustomerRefundWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) =>
    listMyOrderRefunds(principal, params.id, page).pipe(Effect.map((refunds) => ({ status: 200, body: refunds, headers: privateAnswer }))),
});

export const orderRoutes = [quoteRoute, placeOrderRoute, getOrderRoute, myRefundsRoute, trackingRoute];
