/**
 * Restaurant endpoints (paths under the module's mount prefix): discovery (public), the menu
 * (public), and for the restaurant's staff: create, add and remove staff, publish a menu version, toggle
 * an item's availability, open and close, list incoming orders, accept or reject an order.
 */
import { Effect, Schema } from "effect";
import { acceptOrder, rejectOrder } from "../../../core/delivery/AcceptOrder.js";
import { discoverRestaurants } from "../../../core/delivery/Discovery.js";
import { listIncomingOrders } from "../../../core/delivery/IncomingOrders.js";
import { orderSettlement } from "../../../core/delivery/OrderSettlement.js";
import { SettlementEntryWire } from "../../../core/delivery/model/SettlementEntry.js";
import { currentMenu, publishMenu, setItemAvailability } from "../../../core/delivery/Menus.js";
import { addStaff, createRestaurant, listStaff, removeStaff, setOpening } from "../../../core/delivery/Restaurants.js";
import { RestaurantWire } from "../../../core/delivery/model/Restaurant.js";
import { RestaurantOrderWire } from "../../../core/delivery/model/RestaurantOrder.js";
import {
  DiscoveredRestaurantWire,
  ItemAvailabilityWire,
  PublishedMenuWire,
  RestaurantStaffWire,
} from "../../../core/delivery/model/Views.js";
import { mapPage } from "../../../core/kernel/Page.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import {
  AcceptOrderBody,
  AddStaffBody,
  AvailabilityBody,
  CreateRestaurantBody,
  DiscoveryQuery,
  ItemParams,
  OrderParams,
  PublishMenuBody,
  RejectOrderBody,
  RemoveStaffQuery,
  RestaurantParams,
  StaffParams,
} from "./RestaurantSchemas.js";

const tags = ["delivery"];

/** A query coordinate as a number (NaN when absent or not a number: the core answers 400 invalid_coordinates). */
const coordinate = (value: string | undefined): number | undefined => (value === undefined ? undefined : value.trim() === "" ? Number.NaN : Number(value));

/** GET /restaurants?lat=&lng=&cursor= — open restaurants serving the point, nearest first. */
const discoverRoute = defineRoute({
  method: "GET",
  path: "/restaurants",
  operationId: "discoverRestaurants",
  summary: "Discover open restaurants serving a point (keyset pages, nearest first)",
  description:
    "Public. Open restaurants with a published menu whose service zone contains (lat, lng), nearest first then by id. 400 invalid_coordinates for a missing or out-of-range point; a cursor is bound to its point. At most 100 per page.",
  tags,
  budget: { name: "delivery_discovery" },
  auth: "none",
  pagination: true,
  query: DiscoveryQuery,
  responses: { 200: PageOf(DiscoveredRestaurantWire) },
  problems: [400],
  handler: ({ query, page }) => {
    const lat = coordinate(query.lat);
    const lng = coordinate(query.lng);
    return discoverRestaurants({
      ...(lat === undefined ? {} : { lat }),
      ...(lng === undefined ? {} : { lng }),
      cursor: page.cursor,
      limit: page.limit,
    }).pipe(
      Effect.map((found) => ({
        status: 200,
        body: mapPage(found, ({ restaurant, distanceM }) => {
          const { merchantId: _m, createdBy: _c, version: _v, ...shown } = restaurant;
          return { ...shown, distanceM };
        }),
      })),
    );
  },
});

/** POST /restaurants — create a closed restaurant; the caller becomes its staff. */
const createRestaurantRoute = defineRoute({
  method: "POST",
  path: "/restaurants",
  operationId: "createRestaurant",
  summary: "Create a restaurant (closed until opened; the creator is its staff)",
  description: "A payments merchant of its own is provisioned for it. Coordinates in degrees; service radius 1 to 50,000 m.",
  tags,
  auth: "required",
  answersEtag: "version",
  body: CreateRestaurantBody,
  responses: { 201: RestaurantWire },
  problems: [403, 422],
  handler: ({ principal, body }) =>
    createRestaurant(principal, { name: body.name, lat: body.lat, lng: body.lng, serviceRadiusM: body.service_radius_m, currency: body.currency }).pipe(
      Effect.map((restaurant) => ({ status: 201, body: restaurant, etag: restaurant.version })),
    ),
});

/** POST /restaurants/:id/staff — add a user to the staff (staff only). */
const addStaffRoute = defineRoute({
  method: "POST",
  path: "/restaurants/:id/staff",
  operationId: "addRestaurantStaff",
  summary: "Add a user to the restaurant's staff",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: RestaurantParams,
  body: AddStaffBody,
  responses: { 201: RestaurantStaffWire },
  problems: [404, 422],
  handler: ({ principal, params, body }) => addStaff(principal, params.id, body.user_id).pipe(Effect.map((staff) => ({ status: 201, body: staff }))),
});

/** GET /restaurants/:id/staff — the restaurant's staff (staff only), keyset pages by user id. */
const listStaffRoute = defineRoute({
  method: "GET",
  path: "/restaurants/:id/staff",
  operationId: "listRestaurantStaff",
  summary: "List the restaurant's staff",
  description: "Staff only (anyone else 404): who works for the restaurant (`user_id`, `added_by`, `created_at`), by user id.",
  tags,
  auth: "required",
  pagination: true,
  params: RestaurantParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(RestaurantStaffWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) => listStaff(principal, params.id, page).pipe(Effect.map((staff) => ({ status: 200, body: staff }))),
});

/** DELETE /restaurants/:id/staff/:user_id?reason= — remove a staff member (staff only; idempotent, 204). */
const removeStaffRoute = defineRoute({
  method: "DELETE",
  path: "/restaurants/:id/staff/:user_id",
  operationId: "removeRestaurantStaff",
  summary: "Remove a user from the restaurant's staff (idempotent)",
  description:
    "Any staff member may remove one (themself included). Records actor and reason (1 to 500 characters; a default without it) and drops the removed user's live subscriptions to the restaurant's channel; their next request answers 404 like any non-staff user's. Removing someone who is not staff answers 204 and changes nothing. 409 last_staff_member when it would leave the restaurant without staff. Another restaurant's staff: 404.",
  tags,
  auth: "required",
  // Not one transaction: the access-changed notice goes out after the removal commits.
  params: StaffParams,
  query: RemoveStaffQuery,
  responses: { 204: null },
  problems: [404, 409, 422],
  handler: ({ principal, params, query }) => removeStaff(principal, params.id, params.user_id, { reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** POST /restaurants/:id/menus — publish the next immutable menu version. */
const publishMenuRoute = defineRoute({
  method: "POST",
  path: "/restaurants/:id/menus",
  operationId: "publishMenu",
  summary: "Publish a new immutable menu version",
  description: "Items keep their identity across versions when the request names an earlier item's id. 409 menu_publish_conflict when another version was published meanwhile.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: RestaurantParams,
  body: PublishMenuBody,
  responses: { 201: PublishedMenuWire },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    publishMenu(
      principal,
      params.id,
      body.items.map((item) => ({
        ...(item.id === undefined ? {} : { id: item.id }),
        name: item.name,
        priceMinor: item.price_minor,
        ...(item.available === undefined ? {} : { available: item.available }),
        modifiers: (item.modifiers ?? []).map((m) => ({ ...(m.id === undefined ? {} : { id: m.id }), name: m.name, priceMinor: m.price_minor })),
      })),
    ).pipe(Effect.map((menu) => ({ status: 201, body: { restaurantId: params.id, ...menu }, etag: menu.version }))),
});

/** GET /restaurants/:id/menu — the current menu version (public). */
const getMenuRoute = defineRoute({
  method: "GET",
  path: "/restaurants/:id/menu",
  operationId: "getMenu",
  summary: "Read the restaurant's current menu version",
  tags,
  auth: "none",
  answersEtag: "version",
  params: RestaurantParams,
  responses: { 200: PublishedMenuWire },
  problems: [404],
  handler: ({ params }) => currentMenu(params.id).pipe(Effect.map((menu) => ({ status: 200, body: { restaurantId: params.id, ...menu }, etag: menu.version }))),
});

/** PUT /restaurants/:id/items/:item_id/availability — the next quote sees it at once. */
const availabilityRoute = defineRoute({
  method: "PUT",
  path: "/restaurants/:id/items/:item_id/availability",
  operationId: "setItemAvailability",
  summary: "Set a menu item's availability",
  tags,
  auth: "required",
  params: ItemParams,
  body: AvailabilityBody,
  responses: { 200: ItemAvailabilityWire },
  problems: [404, 422],
  handler: ({ principal, params, body }) =>
    setItemAvailability(principal, params.id, params.item_id, body.available).pipe(Effect.map((row) => ({ status: 200, body: row }))),
});

const openingRoute = (state: "open" | "closed") =>
  defineRoute({
    method: "POST",
    path: `/restaurants/:id/${state === "open" ? "open" : "close"}`,
    operationId: state === "open" ? "openRestaurant" : "closeRestaurant",
    summary: state === "open" ? "Open the restaurant for orders" : "Close the restaurant",
    tags,
    auth: "required",
    answersEtag: "version",
    // One transaction, nothing called outside: the key and the answer commit with the work.
    oneTransaction: true,
    params: RestaurantParams,
    responses: { 200: RestaurantWire },
    problems: [404],
    handler: ({ principal, params }) =>
      setOpening(principal, params.id, state).pipe(Effect.map((restaurant) => ({ status: 200, body: restaurant, etag: restaurant.version }))),
  });

/** GET /restaurants/:id/orders — the restaurant's open orders, oldest first (staff only). */
const incomingOrdersRoute = defineRoute({
  method: "GET",
  path: "/restaurants/:id/orders",
  operationId: "listIncomingOrders",
  summary: "List the restaurant's incoming orders (keyset pages)",
  description: "Awaiting payment, authorized (to accept or reject) and accepted orders, oldest first. At most 100 per page.",
  tags,
  auth: "required",
  pagination: true,
  params: RestaurantParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(RestaurantOrderWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) =>
    listIncomingOrders(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((orders) => ({ status: 200, body: orders })),
    ),
});

/** POST /restaurant-orders/:id/accept — accept with a promised preparation time (idempotent). */
const acceptOrderRoute = defineRoute({
  method: "POST",
  path: "/restaurant-orders/:id/accept",
  operationId: "acceptRestaurantOrder",
  summary: "Accept an order with a promised preparation time",
  description:
    "Staff of the owning restaurant. Repeating it answers the same order and the same delivery_id (the transition is idempotent); exactly one delivery is created and dispatch starts. 409 order_not_acceptable once the order is cancelled or rejected. Another restaurant's order answers 404.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: OrderParams,
  body: AcceptOrderBody,
  responses: { 200: RestaurantOrderWire },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    acceptOrder(principal, params.id, { prepTimeMinutes: body.prep_time_minutes }).pipe(
      Effect.map(({ workflow }) => ({ status: 200, body: workflow, etag: workflow.version })),
    ),
});

/** POST /restaurant-orders/:id/reject — reject with a reason; the authorization is voided. */
const rejectOrderRoute = defineRoute({
  method: "POST",
  path: "/restaurant-orders/:id/reject",
  operationId: "rejectRestaurantOrder",
  summary: "Reject an order with a reason (voids the payment authorization)",
  tags,
  auth: "required",
  answersEtag: "version",
  params: OrderParams,
  body: RejectOrderBody,
  responses: { 200: RestaurantOrderWire },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    rejectOrder(principal, params.id, { reason: body.reason }).pipe(Effect.map((workflow) => ({ status: 200, body: workflow, etag: workflow.version }))),
});

/** GET /restaurant-orders/:id/settlement — the order's balanced settlement entries (staff). */
const settlementRoute = defineRoute({
  method: "GET",
  path: "/restaurant-orders/:id/settlement",
  operationId: "getOrderSettlement",
  summary: "Read an order's settlement entries (they sum to zero per currency)",
  description:
    "Staff of the owning restaurant. Posted with the delivery's completion: customer charge (+total), restaurant payable (-(subtotal + tax)), courier payable (-delivery fee), platform fee (-service fee), each under a unique component key; corrections are linked reversals. Empty before completion (a handful of entries: one page).",
  tags,
  auth: "required",
  params: OrderParams,
  responses: { 200: PageOf(SettlementEntryWire) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    orderSettlement(principal, params.id).pipe(Effect.map((entries) => ({ status: 200, body: { data: entries, next_cursor: null } }))),
});

/** Every restaurant route. */
export const restaurantRoutes = [
  discoverRoute,
  createRestaurantRoute,
  addStaffRoute,
  listStaffRoute,
  removeStaffRoute,
  publishMenuRoute,
  getMenuRoute,
  availabilityRoute,
  openingRoute("open"),
  openingRoute("closed"),
  incomingOrdersRoute,
  acceptOrderRoute,
  rejectOrderRoute,
  settlementRoute,
];
