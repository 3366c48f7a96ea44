/** Routes of orders: checkout, read (timeline), list, cancellation and dispatch of shipments. */
import { Effect } from "effect";
import { cancelOrder } from "../../../core/commerce/CancelOrder.js";
import { orderActorOf, shopperOf, userOf } from "../../../core/commerce/Callers.js";
import { dispatchShipment } from "../../../core/commerce/Fulfillment.js";
import { getOrder, listOrderTimeline, listOrders } from "../../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../../core/commerce/PlaceOrder.js";
import { OrderTimelineEntryWire, OrderViewWire, OrderWire } from "../../../core/commerce/model/Order.js";
import { bindCursor } from "../../../core/kernel/Cursor.js";
import { ShipmentWire } from "../../../core/commerce/model/Shipment.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { idempotencyKeyHeader } from "../Idempotency.js";
import { listIdentity } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { orderViewEtag } from "./OrderViewEtag.js";
import { orderPersonalFieldNames, reissueOrderPersonalFields } from "./OrderPersonalFields.js";
import { CancelOrderBody, CheckoutBody, DispatchBody, OrderListQuery, OrderTimelineQuery } from "./OrderSchemas.js";
import { OrderParams } from "./StoreSchemas.js";

const tags = ["commerce"];
const privately = { "Cache-Control": "no-store" };

/** POST /v1/orders — checkout: price, reserve, write the order, authorize the payment. */
export const checkoutRoute = defineRoute({
  method: "POST",
  path: "/v1/orders",
  operationId: "checkout",
  summary: "Check out a cart: price it server-side, reserve stock, create the order and authorize the payment",
  description:
    "Idempotency-Key required, scoped to the account (or the guest cart) and the payload. 201 `confirmed`, or `payment_pending` when the " +
    "provider's answer is unknown (resolved by lookup, never guessed). 402 payment_declined (the order is failed, stock released). " +
    "409 insufficient_stock, variant_unavailable, cart_checked_out, or price_changed with a `diff` when expected_total_minor differs " +
    "(resend with the new total to confirm). 422 for an empty cart, a bad address or an unknown promotion code. 429 checkout_risk with " +
    "Retry-After when five checkouts within an hour under the account, the client's network or the e-mail were declined or still " +
    "await their payment's answer (Retry-After 30 s when only the latter fill the bound).",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  // The e-mail and address are sealed at rest: never kept in clear with the stored answer.
  unstored: { fields: orderPersonalFieldNames, reissue: ({ principal }, stored) => reissueOrderPersonalFields(principal, stored) },
  body: CheckoutBody,
  responses: { 201: OrderWire },
  problems: [402, 403, 404, 409, 422],
  handler: ({ principal, body }, ctx) =>
    Effect.flatMap(shopperOf(principal), (shopper) =>
      placeOrder(shopper, {
        cartId: body.cart_id,
        paymentMethod: body.payment_method,
        shippingAddress: { ...body.shipping_address, line2: body.shipping_address.line2 ?? null },
        email: body.email ?? null,
        promotionCodes: body.promotion_codes ?? [],
        expectedTotalMinor: body.expected_total_minor ?? null,
        idempotencyKey: ctx.get(idempotencyKeyHeader),
        // The client address as the host resolved it (Koa's `proxy` setting): a checkout risk signal.
        clientIp: ctx.ip === "" ? null : ctx.ip,
      }),
    ).pipe(Effect.map(({ order }) => ({ status: 201, body: order, etag: order.version, headers: privately }))),
});

/** GET /v1/orders/:id/timeline — the order's timeline in entry order, in keyset pages. */
export const listOrderTimelineRoute = defineRoute({
  method: "GET",
  path: "/v1/orders/:id/timeline",
  operationId: "listOrderTimeline",
  summary: "List an order's timeline in entry order (owner, guest with the cart token, or store staff; opaque keyset cursor)",
  description:
    "State moves, payment events, shipments, returns and, for store staff only, fulfillment task assignments and releases " +
    "(left out of a shopper's pages before the limit, so every page but the last is full). A shopper sees a staff member's " +
    "`actor_id` as `staff` (who in the store acted is the store's business); staff read `staff:<user id>`. 404 for anyone else.",
  tags,
  auth: "required",
  pagination: true,
  params: OrderParams,
  query: OrderTimelineQuery,
  responses: { 200: PageOf(OrderTimelineEntryWire) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    Effect.flatMap(orderActorOf(principal, params.id, "support"), (actor) => listOrderTimeline(actor, params.id, { cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((listed) => ({ status: 200, body: listed, headers: privately })),
    ),
});

/** GET /v1/orders/:id — the order with its lines and the first page of its timeline. */
export const getOrderRoute = defineRoute({
  method: "GET",
  path: "/v1/orders/:id",
  operationId: "getOrder",
  summary: "Read an order with its lines and the first page of its timeline (owner, guest with the cart token, or store support)",
  description:
    "`timeline` is the page GET /v1/orders/:id/timeline answers with no cursor (the default page size); `timeline_next_cursor` " +
    "continues that list (null when the page is the whole timeline). The ETag is weak, `W/\"<version>.<digest>\"`: it changes with " +
    "anything the answer shows, the embedded page included (entries are added without a version bump). The order's writes take no " +
    "If-Match; the version part is the one the If-Match grammar reads.",
  tags,
  auth: "required",
  answersEtag: "weak",
  params: OrderParams,
  responses: { 200: OrderViewWire },
  problems: [403, 404],
  handler: ({ principal, params, page }) =>
    Effect.gen(function* () {
      const actor = yield* orderActorOf(principal, params.id, "support");
      // Not a list route: `page.limit` is the host's default page size, the list's first page.
      const order = yield* getOrder(actor, params.id, page.limit);
      // The cursor is the timeline list's, bound to it as that list binds its own.
      const list = listIdentity(listOrderTimelineRoute.operationId, params, {});
      const timelineNextCursor = order.timelineNextCursor === null ? null : yield* Effect.orDie(bindCursor(order.timelineNextCursor, list));
      return { status: 200, body: { ...order, timelineNextCursor }, headers: { ...privately, ETag: orderViewEtag(order) } };
    }),
});

/** GET /v1/orders — the signed-in customer's orders, newest first. */
export const listOrdersRoute = defineRoute({
  method: "GET",
  path: "/v1/orders",
  operationId: "listOrders",
  summary: "List the caller's orders, newest first (opaque keyset cursor)",
  tags,
  auth: "required",
  pagination: true,
  query: OrderListQuery,
  responses: { 200: PageOf(OrderWire) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    Effect.flatMap(userOf(principal), (userId) => listOrders(userId, { cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((listed) => ({ status: 200, body: listed, headers: privately })),
    ),
});

/** POST /v1/orders/:id/cancel — state-aware cancellation (202). */
export const cancelOrderRoute = defineRoute({
  method: "POST",
  path: "/v1/orders/:id/cancel",
  operationId: "cancelOrder",
  summary: "Cancel an order not yet dispatched (owner or support; support gives a reason)",
  description:
    "202: the cancellation is requested; the authorization is voided (or a capture refunded) and the reservations released, " +
    "then the order is `cancelled` (at once, or by a job when the payment step must wait). 409 order_dispatched after dispatch.",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  unstored: { fields: orderPersonalFieldNames, reissue: ({ principal }, stored) => reissueOrderPersonalFields(principal, stored) },
  params: OrderParams,
  body: CancelOrderBody,
  responses: { 202: OrderWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(orderActorOf(principal, params.id, "support"), (actor) => cancelOrder(actor, params.id, { reason: body.reason ?? "" })).pipe(
      Effect.map((order) => ({ status: 202, body: order, etag: order.version })),
    ),
});

/** POST /v1/orders/:id/shipments — dispatch the order's stock at a location. */
export const dispatchShipmentRoute = defineRoute({
  method: "POST",
  path: "/v1/orders/:id/shipments",
  operationId: "dispatchShipment",
  summary: "Dispatch a confirmed order's stock at a location with carrier and tracking number (warehouse operator)",
  description:
    "Consumes the reservations there (on_hand and reserved both drop) and publishes ShipmentDispatched (the customer is e-mailed); " +
    "once the whole order has shipped it is `dispatched` and its payment captured. 409 order_state_conflict unless confirmed; 409 tracking_number_in_use when the carrier's tracking number is already another shipment's.",
  tags,
  auth: "required",
  params: OrderParams,
  body: DispatchBody,
  responses: { 201: ShipmentWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      dispatchShipment(userId, params.id, { locationId: body.location_id, carrier: body.carrier, trackingNumber: body.tracking_number }),
    ).pipe(Effect.map((shipment) => ({ status: 201, body: shipment }))),
});

/** Order routes. */
export const orderRoutes = [checkoutRoute, getOrderRoute, listOrderTimelineRoute, listOrdersRoute, cancelOrderRoute, dispatchShipmentRoute];
